// The `npm start` smoke test of `npm run test:runtime` (run inside the Debian 13 root, on the
// Node there): a fresh DATA_DIR, the real `npm start`, the printed demo key saves a link, its
// first redirect answers 302 to the destination, the click is stored (browsed back from the
// analytics API), and SIGTERM stops the service with exit code 0. Prints one line per step;
// exits non-zero with the service's output on any failure.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../shared/net/free-port.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const started = Date.now();
const step = (m: string): void => void process.stdout.write(`[smoke ${((Date.now() - started) / 1000).toFixed(1)} s] ${m}\n`);

mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const dataDir = mkdtempSync(join(ROOT, '.tmp', 'smoke-'));
const [apiPort, redirectPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
const child = spawn('npm', ['start'], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: dataDir,
    API_PORT: String(apiPort),
    REDIRECT_PORT: String(redirectPort),
    METRICS_PORT: String(metricsPort),
    API_HOST: '127.0.0.1',
    REDIRECT_HOST: '127.0.0.1',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true, // its own process group: stopped the way a terminal or systemd stops it
});
const signalGroup = (signal: NodeJS.Signals): void => {
  try {
    process.kill(-(child.pid ?? 0), signal);
  } catch {
    /* already gone */
  }
};
let output = '';
child.stdout.on('data', (d: Buffer) => (output += d.toString()));
child.stderr.on('data', (d: Buffer) => (output += d.toString()));
const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}) while waiting for ${what}`);
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

try {
  const api = `http://127.0.0.1:${apiPort}/link/external/v1`;
  const key = await until('demo key', async () => /slk_[A-Za-z0-9_-]+/.exec(output)?.[0] ?? null, 120_000);
  await until('API', async () => ((await fetch(`http://127.0.0.1:${apiPort}/healthz`)).ok ? true : null), 60_000);
  await until('redirector', async () => ((await fetch(`http://127.0.0.1:${redirectPort}/healthz`)).ok ? true : null), 60_000);
  const build = /uWebSockets\.js \d[^\n]*/.exec(output)?.[0].replace(/\)$/, '') ?? 'uWS build not named';
  step(`npm start is serving (${build})`);
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const saved = await fetch(`${api}/shortenedUrl/save`, { method: 'POST', headers, body: JSON.stringify({ url: 'https://example.com/runtime-smoke' }) });
  const body = (await saved.json()) as { response?: { shortCode: string } };
  const code = body.response?.shortCode;
  if (saved.status !== 200 || !code) throw new Error(`save answered ${saved.status}: ${JSON.stringify(body)}`);
  const click = await fetch(`http://127.0.0.1:${redirectPort}/${code}`, {
    redirect: 'manual',
    headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) runtime-smoke' },
  });
  if (click.status !== 302 || click.headers.get('location') !== 'https://example.com/runtime-smoke') {
    throw new Error(`first redirect answered ${click.status} to ${click.headers.get('location')}`);
  }
  step(`first redirect: 302 /${code} → ${click.headers.get('location')}`);
  const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const event = await until(
    'stored click',
    async () => {
      const r = await fetch(`${api}/analytics/events?from=${day(-1)}&to=${day(1)}&shortCode=${code}&limit=10`, { headers });
      const page = (await r.json()) as { response?: { data: { eventType: string; shortCode: string }[] } };
      return page.response?.data.find((e) => e.eventType === 'CLICK' && e.shortCode === code) ?? null;
    },
    30_000,
  );
  step(`its ${event.eventType} event is stored`);
  signalGroup('SIGTERM');
  const code0 = await exited;
  if (code0 !== 0) throw new Error(`npm start exited with ${code0} on SIGTERM`);
  step('SIGTERM: exit code 0');
} catch (err) {
  signalGroup('SIGKILL');
  process.stderr.write(`[smoke] FAILED: ${err instanceof Error ? err.message : String(err)}\n--- npm start output ---\n${output}\n`);
  process.exitCode = 1;
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
