// Invariant: `npm run bench -- dashboard` measures the first load of the Links page in a real
// Chromium: an organisation with 10,000 links (seeded by SQL into a fresh embedded Postgres), the
// whole service (`bin/start.ts`) serving it, and the time from navigation to the first page of
// links on screen (its caption counts all 10,000), cold (a fresh browser context: nothing cached,
// signed in by cookie) and warm (a reload: the hashed assets come from the HTTP cache). Medians of
// BENCH_DASHBOARD_REPS runs (default 7) each. It also reports the SPA's size on the wire.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { SPA_DIST } from '../dashboard/spa-assets.ts';
import { acceptInvite, createInvite } from '../shared/accounts/invites.ts';
import { connect } from '../shared/db/database.ts';
import { openEmbeddedPostgres } from '../shared/db/embedded-postgres.ts';
import { migrate } from '../shared/db/migrate.ts';
import { createOrganization } from '../shared/orgs/org-repository.ts';
import { freePort } from '../shared/net/free-port.ts';

const ROOT = join(import.meta.dirname, '..');
const LINKS = 10_000;
const PASSWORD = 'bench passphrase long enough';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function dashboardBench(): Promise<void> {
  const reps = Number(process.env.BENCH_DASHBOARD_REPS ?? 7);
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.tmp', 'bench-dashboard-'));
  chmodSync(dir, 0o755);
  const pg = await openEmbeddedPostgres(join(dir, 'pg'));
  const sql = connect(pg.url, 2);
  let child: ReturnType<typeof spawn> | null = null;
  try {
    await migrate(sql);
    const org = await createOrganization(sql, { name: 'Bench', plan: 'BUSINESS' });
    await sql`
      insert into links (org_id, short_code, url, short_link_name, created_by, updated_by, created_via, last_modified_via, created_at)
      select ${org.id}, 'bench' || lpad(i::text, 6, '0'), 'https://example.com/page/' || i, 'Link ' || i, 'bench@example.com', 'bench@example.com',
             'INTERNAL', 'INTERNAL', now() - (i || ' seconds')::interval
      from generate_series(1, ${LINKS}) as i`;
    await sql`vacuum analyze links`;
    const { token } = await createInvite(sql, { orgId: org.id, email: 'bench@example.com', role: 'owner', invitedBy: 'bench' });
    await acceptInvite(sql, token, { password: PASSWORD });

    const [api, redirect, dash] = [await freePort(), await freePort(), await freePort()];
    const base = `http://127.0.0.1:${dash}`;
    child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'start.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: pg.url,
        DATA_DIR: join(dir, 'data'),
        API_PORT: String(api),
        REDIRECT_PORT: String(redirect),
        DASHBOARD_PORT: String(dash),
        DASHBOARD_PUBLIC_URL: base,
        API_HOST: '127.0.0.1',
        REDIRECT_HOST: '127.0.0.1',
        DASHBOARD_HOST: '127.0.0.1',
        METRICS_PORT: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    const deadline = Date.now() + 60_000;
    while (
      !(await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error('the service did not start within 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }

    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
    try {
      const signInContext = await browser.newContext();
      const signInPage = await signInContext.newPage();
      await signInPage.goto(`${base}/sign-in`);
      await signInPage.getByLabel('E-mail').fill('bench@example.com');
      await signInPage.getByLabel('Password').fill(PASSWORD);
      await signInPage.getByRole('button', { name: 'Sign in' }).click();
      await signInPage.getByRole('heading', { level: 1, name: 'Links' }).waitFor();
      const storageState = await signInContext.storageState();
      await signInContext.close();

      const loaded = (page: import('playwright-core').Page) =>
        page
          .getByRole('table')
          .getByText(`${LINKS.toLocaleString('en-US').replace(',', '')} links`)
          .waitFor();
      const cold: number[] = [];
      const warm: number[] = [];
      for (let i = 0; i < reps; i++) {
        const context = await browser.newContext({ storageState });
        const page = await context.newPage();
        let t = Date.now();
        await page.goto(`${base}/links`);
        await loaded(page);
        cold.push(Date.now() - t);
        t = Date.now();
        await page.reload();
        await loaded(page);
        warm.push(Date.now() - t);
        await context.close();
      }
      const assets = readdirSync(join(SPA_DIST, 'assets')).map((f) => readFileSync(join(SPA_DIST, 'assets', f)));
      const raw = assets.reduce((n, b) => n + b.length, 0) + statSync(join(SPA_DIST, 'index.html')).size;
      const gz = assets.reduce((n, b) => n + gzipSync(b).length, 0);
      const line = `dashboard: Links page with ${LINKS} links, first page of 20 on screen: cold median ${median(cold)} ms (${cold.join(', ')}), warm median ${median(warm)} ms (${warm.join(', ')}); SPA ${(raw / 1024).toFixed(0)} KiB, ${(gz / 1024).toFixed(0)} KiB gzipped`;
      process.stdout.write(`${line}\n`);
    } finally {
      await browser.close();
    }
  } finally {
    child?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 3000));
    await sql.end({ timeout: 1 });
    await pg.release();
    rmSync(dir, { recursive: true, force: true });
  }
}
