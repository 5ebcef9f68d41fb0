// The admin CLI's webhook commands, spawned as a real process against a fresh database: add
// refuses an http or private URL with one clear line (exit 1) and prints the secret once; list is
// per organisation and shows a secret's last 4 characters only; rotate, test, replay, disable,
// enable and remove act on that organisation's endpoint only; update changes the URL (the same
// refusals as add) or the event types.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createOrganization } from '../shared/orgs/org-repository.ts';
import { createTestDatabase, type TestDatabase } from './support/servers.ts';

const execFileP = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
let db: TestDatabase;

async function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: join(ROOT, '.tmp', 'admin-cli-no-data'), DATABASE_URL: db.url };
  try {
    const { stdout, stderr } = await execFileP(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { cwd: ROOT, env: { ...base, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const PRIVATE = { WEBHOOK_ALLOW_PRIVATE: 'true' };
async function json<T>(env: Record<string, string>, ...args: string[]): Promise<T> {
  const r = await cli(env, ...args, '--json');
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => db?.drop());

describe('admin CLI webhook commands', () => {
  it('update: the URL through the same policy as add, the event types checked, that organisation only', async () => {
    const org = await createOrganization(db.sql, { name: 'cli-hooks-update', plan: 'BUSINESS' });
    const other = await createOrganization(db.sql, { name: 'cli-hooks-update-other', plan: 'BUSINESS' });
    const added = await json<{ id: string }>(PRIVATE, 'webhook', 'add', '--org', org.id, '--url', 'http://127.0.0.1:9/x', '--events', 'link.created');
    const https = await cli({}, 'webhook', 'update', '--org', org.id, '--id', added.id, '--url', 'http://hooks.example/y');
    expect([https.code, https.stderr]).toEqual([1, expect.stringContaining('Webhook URL must use https')]);
    const loopback = await cli({}, 'webhook', 'update', '--org', org.id, '--id', added.id, '--url', 'https://10.1.2.3/y');
    expect([loopback.code, loopback.stderr]).toEqual([1, expect.stringContaining('resolves to a private address (10.1.2.3)')]);
    const types = await cli({}, 'webhook', 'update', '--org', org.id, '--id', added.id, '--events', 'link.exploded');
    expect([types.code, types.stderr]).toEqual([1, expect.stringContaining('eventTypes must be one or more of')]);
    const nothing = await cli({}, 'webhook', 'update', '--org', org.id, '--id', added.id);
    expect([nothing.code, nothing.stderr]).toEqual([2, expect.stringContaining('give --url, --events or both')]);
    const elsewhere = await cli(PRIVATE, 'webhook', 'update', '--org', other.id, '--id', added.id, '--events', 'link.expired');
    expect(elsewhere.code).toBe(1);

    const events = await json<{ url: string; eventTypes: string[] }>(
      PRIVATE,
      'webhook',
      'update',
      '--org',
      org.id,
      '--id',
      added.id,
      '--events',
      'link.expired,link.updated',
    );
    expect(events).toMatchObject({ url: 'http://127.0.0.1:9/x', eventTypes: ['link.expired', 'link.updated'] });
    const url = await json<{ url: string; eventTypes: string[] }>(
      PRIVATE,
      'webhook',
      'update',
      '--org',
      org.id,
      '--id',
      added.id,
      '--url',
      'http://127.0.0.1:9/z',
    );
    expect(url).toMatchObject({ url: 'http://127.0.0.1:9/z', eventTypes: ['link.expired', 'link.updated'] });
  });

  it('add, list, rotate, test, replay, disable, enable, remove', async () => {
    const org = await createOrganization(db.sql, { name: 'cli-hooks', plan: 'BUSINESS' });
    const other = await createOrganization(db.sql, { name: 'cli-hooks-other', plan: 'BUSINESS' });

    const refused = await cli({}, 'webhook', 'add', '--org', org.id, '--url', 'http://hooks.example/x', '--events', 'link.created');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Webhook URL must use https');
    const loopback = await cli({}, 'webhook', 'add', '--org', org.id, '--url', 'https://127.0.0.1/x', '--events', 'link.created');
    expect(loopback.stderr).toContain('resolves to a private address (127.0.0.1)');

    const added = await json<{ id: string; secret: string }>(
      PRIVATE,
      'webhook',
      'add',
      '--org',
      org.id,
      '--url',
      'http://127.0.0.1:9/x',
      '--events',
      'link.created,analytics.events',
    );
    expect(added.secret).toMatch(/^whsec_/);
    const listed = await cli({}, 'webhook', 'list', '--org', org.id);
    expect(listed.stdout).toContain(added.id);
    expect(listed.stdout).toContain(`…${added.secret.slice(-4)}`);
    expect(listed.stdout).not.toContain(added.secret.slice(6, 20));
    expect((await json<{ endpoints: unknown[] }>({}, 'webhook', 'list', '--org', other.id)).endpoints).toEqual([]);

    const rotated = await json<{ secret: string }>({}, 'webhook', 'rotate', '--org', org.id, '--id', added.id);
    expect(rotated.secret).not.toBe(added.secret);
    const test = await json<{ webhookId: string }>({}, 'webhook', 'test', '--org', org.id, '--id', added.id);
    expect(test.webhookId).toMatch(/^msg_[0-9a-f]{32}$/);
    await db.sql`update webhook_messages set status = 'DELIVERED' where id = ${test.webhookId}`;
    expect(await json<{ replayed: string[] }>({}, 'webhook', 'replay', '--org', org.id, '--message', test.webhookId)).toEqual({ replayed: [test.webhookId] });
    const [row] = await db.sql<{ status: string }[]>`select status from webhook_messages where id = ${test.webhookId}`;
    expect(row?.status).toBe('PENDING');

    // Another organisation cannot touch it.
    expect((await cli({}, 'webhook', 'disable', '--org', other.id, '--id', added.id)).code).toBe(1);
    expect(await json<{ enabled: boolean }>({}, 'webhook', 'disable', '--org', org.id, '--id', added.id)).toMatchObject({ enabled: false });
    expect(await json<{ enabled: boolean }>({}, 'webhook', 'enable', '--org', org.id, '--id', added.id)).toMatchObject({ enabled: true });
    expect(await json<{ removed: string }>({}, 'webhook', 'remove', '--org', org.id, '--id', added.id)).toEqual({ removed: added.id });
    expect((await json<{ endpoints: unknown[] }>({}, 'webhook', 'list', '--org', org.id)).endpoints).toEqual([]);
  });
});
