// Invariant: one booted service per test file, on its own database, with organisations and keys
// created through the real admin CLI.
import { inject } from 'vitest';
import { createTestDatabase, type TestDatabase } from './servers.ts';
import { apiClient, removeDir, startService, type ServiceProcess } from './service-process.ts';

export interface Org {
  id: string;
  key: string;
  client: ReturnType<typeof apiClient>;
}

export interface ApiFixture {
  db: TestDatabase;
  svc: ServiceProcess;
  org(plan: string, opts?: { label?: string; scopes?: string; limits?: string[] }): Promise<Org>;
  close(): Promise<void>;
}

/** Boots on a fresh database of `adminUrl` (default: the real server when reachable, else the embedded one). */
export async function bootApi(extraEnv: Record<string, string> = {}, adminUrl: string = inject('realPgUrl') ?? inject('embeddedPgUrl')): Promise<ApiFixture> {
  const db = await createTestDatabase(adminUrl);
  const svc = await startService({ DATABASE_URL: db.url, ...extraEnv });
  return {
    db,
    svc,
    org: async (plan, opts = {}) => {
      const org = await svc.admin<{ id: string }>('org', 'create', '--name', `org-${plan}`, '--plan', plan);
      // Generous crud limits unless a test asks otherwise, so suites are not rate-limited by accident.
      await svc.admin(
        'org',
        'set-limits',
        '--org',
        org.id,
        ...(opts.limits ?? ['--crud-per-min', '100000', '--analytics-per-min', '100000', '--export-per-min', '100000']),
      );
      const created = await svc.admin<{ key: string }>(
        'key',
        'create',
        '--org',
        org.id,
        '--label',
        opts.label ?? 'tests',
        ...(opts.scopes ? ['--scopes', opts.scopes] : []),
      );
      return { id: org.id, key: created.key, client: apiClient(svc.api, created.key) };
    },
    close: async () => {
      await svc.stop();
      removeDir(svc.env.DATA_DIR);
      await db.drop();
    },
  };
}

/** Asserts (in a throw-friendly way) that no member anywhere in the value is null. */
export function findNullPaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => findNullPaths(v, `${path}[${i}]`));
  if (typeof value === 'object') return Object.entries(value as object).flatMap(([k, v]) => findNullPaths(v, `${path}.${k}`));
  return [];
}
