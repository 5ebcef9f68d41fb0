// Invariant: `npm start` (bin/start.ts, embedded) starts or says in one line why not, and stops
// cleanly. Tested as a black box: the printed demo key and smartLink work as printed; a second
// start on a held DATA_DIR and a start on a taken port exit non-zero with one line naming the
// setting, no stack frame and no stray /tmp/pg-password-* file, and leave nothing running; Ctrl-C
// (SIGINT to the whole process group, as a terminal sends it) and SIGTERM exit 0 with no error
// line, the embedded Postgres stopped and the DATA_DIR lock released (free to take; its file stays).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedClusterDir } from '../shared/db/embedded-postgres-home.ts';
import { tryLockFile } from '../shared/process/file-lock.ts';
import { send } from './support/http-request.ts';
import { apiClient, freePort, removeDir, runToExit, startProcess, tempDataDir, type ChildService } from './support/service-process.ts';

const STACK_FRAME = /^\s+at /m;

/** The DATA_DIR lock is free: this process can take it (and gives it back). Its file stays. */
function expectLockFree(dataDir: string): void {
  const lock = tryLockFile(join(dataDir, '.lock'));
  expect(lock, `${dataDir}/.lock is still held`).not.toBeNull();
  lock?.release();
}

function embeddedEnv(dataDir: string, apiPort: number, redirectPort: number): NodeJS.ProcessEnv {
  // No DEFAULT_SHORT_DOMAIN / SHORT_LINK_BASE_URL and the default LOG_LEVEL: what a user sees.
  return {
    DATA_DIR: dataDir,
    API_PORT: String(apiPort),
    REDIRECT_PORT: String(redirectPort),
    API_HOST: '127.0.0.1',
    REDIRECT_HOST: '127.0.0.1',
    DASHBOARD_PORT: '0',
    DASHBOARD_HOST: '127.0.0.1',
    TLS_ASK_PORT: '0',
  };
}

/** Runs a start that must fail: one line matching `message`, exit 2, no stack, no stray password file in its TMPDIR. */
async function expectSetupFailure(env: NodeJS.ProcessEnv, message: RegExp): Promise<string> {
  // A private TMPDIR (embedded-postgres writes its pg-password-* there): other test runs on this machine share /tmp.
  const tmp = mkdtempSync(join(tmpdir(), 'start-failure-'));
  const outcome = await runToExit('bin/start.ts', { ...env, TMPDIR: tmp }, 60_000);
  const leftovers = readdirSync(tmp).filter((f) => f.startsWith('pg-password-'));
  removeDir(tmp);
  expect(outcome.output).toMatch(message);
  expect(outcome.code).toBe(2);
  expect(outcome.output).not.toMatch(STACK_FRAME);
  expect(outcome.output.trim().split('\n'), outcome.output).toHaveLength(1);
  expect(leftovers).toEqual([]);
  return outcome.output;
}

const postmasterRuns = (dataDir: string): boolean => existsSync(join(embeddedClusterDir(dataDir), 'postmaster.pid'));

describe('npm start: one instance per DATA_DIR, links open as printed, clean stop', () => {
  const dir = tempDataDir();
  const other = tempDataDir();
  let first: ChildService;
  let apiPort = 0;
  let redirectPort = 0;
  let blocker: Server | null = null;

  afterAll(async () => {
    await first?.stop('SIGKILL');
    blocker?.close();
    removeDir(dir);
    removeDir(other);
  });

  it('a fresh start prints a demo key; a saved link’s smartLink is http://localhost:<REDIRECT_PORT>/<code> and redirects', async () => {
    [apiPort, redirectPort] = [await freePort(), await freePort()];
    first = await startProcess('bin/start.ts', embeddedEnv(dir, apiPort, redirectPort), [`http://127.0.0.1:${apiPort}`, `http://127.0.0.1:${redirectPort}`], {
      processGroup: true,
    });
    const key = /API key \(shown once\):\s*\n\s*(\S+)/.exec(first.output())?.[1];
    expect(key).toBeDefined();
    const saved = await apiClient(`http://127.0.0.1:${apiPort}`, key!).save<{ shortCode: string; smartLink: string }>({
      url: 'https://example.com/as-printed',
    });
    expect(saved.status).toBe(200);
    const { shortCode, smartLink } = saved.body.response!;
    expect(smartLink).toBe(`http://localhost:${redirectPort}/${shortCode}`);
    const opened = await send(redirectPort, new URL(smartLink).pathname, { host: new URL(smartLink).host });
    expect(opened.status).toBe(302);
    expect(opened.headers.location).toBe('https://example.com/as-printed');
  }, 120_000);

  it('a second start on the same DATA_DIR stops at once naming DATA_DIR; the first keeps serving', async () => {
    const out = await expectSetupFailure(
      embeddedEnv(dir, await freePort(), await freePort()),
      /DATA_DIR .+ is in use by another shortlink process \(pid \d+\); stop it, or set DATA_DIR/,
    );
    expect(out).not.toMatch(/chdb|ClickHouse/i);
    expect(readFileSync(join(dir, '.lock'), 'utf8').trim()).toMatch(/^\d+$/);
    expect((await fetch(`http://127.0.0.1:${apiPort}/healthz`)).status).toBe(200);
  }, 60_000);

  it('a taken API_PORT or REDIRECT_PORT stops a start with one line naming it, leaving nothing running', async () => {
    await expectSetupFailure(embeddedEnv(other, apiPort, await freePort()), new RegExp(`API_PORT ${apiPort} is in use; set API_PORT`));
    expect(postmasterRuns(other)).toBe(false);
    expectLockFree(other);
    const taken = await freePort();
    blocker = createServer().listen(taken, '127.0.0.1');
    await new Promise((r) => blocker!.once('listening', r));
    await expectSetupFailure(embeddedEnv(other, await freePort(), taken), new RegExp(`REDIRECT_PORT ${taken} is in use; set REDIRECT_PORT`));
    expect(postmasterRuns(other)).toBe(false);
    expectLockFree(other);
  }, 120_000);

  it('Ctrl-C (SIGINT to the whole process group) exits 0 with no error line; Postgres stopped, lock released', async () => {
    expect(postmasterRuns(dir)).toBe(true);
    const before = first.output().length;
    expect(await first.stop('SIGINT')).toBe(0);
    expect(first.output().slice(before)).toMatch(/SIGINT: shutting down/);
    expect(first.output().slice(before)).not.toMatch(/error|failed/i);
    expect(postmasterRuns(dir)).toBe(false);
    expectLockFree(dir);
  }, 60_000);

  it('a stale lock (its pid is gone) is taken over; SIGTERM to the group exits 0 with no error line', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(dir, '.lock'), `${dead}\n`);
    first = await startProcess('bin/start.ts', embeddedEnv(dir, apiPort, redirectPort), [`http://127.0.0.1:${apiPort}`, `http://127.0.0.1:${redirectPort}`], {
      processGroup: true,
    });
    expect(readFileSync(join(dir, '.lock'), 'utf8').trim()).not.toBe(dead);
    expect(first.output()).not.toMatch(/error|failed/i);
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.output()).not.toMatch(/error|failed/i);
    expect(postmasterRuns(dir)).toBe(false);
    expectLockFree(dir);
  }, 120_000);
});
