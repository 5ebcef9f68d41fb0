// Invariant: `npm run bench -- --help` exits 0 and lists every bench and option without running
// one; an unknown bench exits 2 with the same list on stderr.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const execFileP = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const run = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { cwd: ROOT, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
};

it('--help lists the benches and options and exits 0 at once; an unknown bench or option exits 2 with the list on stderr', async () => {
  for (const flag of ['--help', '-h']) {
    const started = Date.now();
    const r = await run(flag);
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000); // no bench ran
    expect(r.stdout).toContain('usage: npm run bench -- [name] [options]');
    for (const name of ['redirect', 'analytics', 'webhooks', 'load', 'all', '--quick', 'BENCH_EVENTS']) expect(r.stdout).toContain(name);
  }
  for (const args of [['nope'], ['--frobnicate']]) {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('usage: npm run bench --');
  }
});
