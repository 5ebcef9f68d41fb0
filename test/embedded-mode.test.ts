// The embedded default: `npm start` with no server URLs runs everything on embedded Postgres
// under DATA_DIR, prints a demo key once, shuts down cleanly on SIGTERM and keeps its data.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedClusterDir } from '../shared/db/embedded-postgres-home.ts';
import { apiClient, removeDir, startService, tempDataDir } from './support/service-process.ts';

const execFileP = promisify(execFile);
const dataDir = tempDataDir();
afterAll(() => removeDir(dataDir));

describe('embedded mode', () => {
  it('serves from an empty DATA_DIR, keeps data across a SIGTERM restart, and lets the CLI work while it runs', async () => {
    const first = await startService({ DATA_DIR: dataDir });
    let secondStop: (() => Promise<number | null>) | null = null;
    try {
      const key = /slk_[A-Za-z0-9_-]+/.exec(first.output())?.[0];
      expect(key, first.output()).toBeDefined();
      expect(first.output()).toContain('curl -s -X POST');
      const client = apiClient(first.api, key!);
      const saved = await client.save<{ shortCode: string }>({ url: 'https://example.com/persist', shortCode: 'persist-me' });
      expect(saved.status).toBe(200);
      // the admin CLI attaches to the running embedded cluster
      const org = await first.admin<{ id: string }>('org', 'create', '--name', 'While running', '--plan', 'PRO');
      expect(org.id).toMatch(/^[0-9a-f-]{36}$/);
      // DATA_DIR/postgres, unless a private folder above it made the service keep it elsewhere
      const clusterDir = embeddedClusterDir(dataDir);
      expect(existsSync(join(clusterDir, 'postmaster.pid'))).toBe(true);

      expect(await first.stop('SIGTERM')).toBe(0);
      expect(existsSync(join(clusterDir, 'postmaster.pid'))).toBe(false);

      const second = await startService({ DATA_DIR: dataDir });
      secondStop = second.stop;
      expect(second.output()).not.toMatch(/slk_/);
      const listed = await apiClient(second.api, key!).list<{ data: { url: string }[] }>({ query: 'shortCode=persist-me' });
      expect(listed.body.response!.data.map((l) => l.url)).toEqual(['https://example.com/persist']);
      expect(await second.stop('SIGTERM')).toBe(0);
      secondStop = null;
    } finally {
      await first.stop('SIGKILL');
      await secondStop?.();
    }
  }, 120_000);
});

describe('configuration', () => {
  it('a wrong environment exits non-zero naming every problem', async () => {
    const err = await execFileP(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
      env: { PATH: process.env.PATH, API_PORT: 'abc', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', TRUST_PROXY: 'perhaps' },
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).not.toBeNull();
    expect(err!.code).toBe(2);
    for (const name of ['API_PORT', 'LOG_LEVEL', 'DATABASE_URL', 'TRUST_PROXY']) expect(err!.stderr).toContain(name);
  });
});
