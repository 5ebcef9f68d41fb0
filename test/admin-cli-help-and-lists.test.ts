// The admin CLI's help and listings, spawned as a real process against a fresh database on the
// machine's Postgres: help is generated from the command table and exits 0; an unknown command
// exits 2 with the usage on stderr; each listing prints one JSON object with --json and a table
// otherwise, and a key listing never shows a key's value or its hash.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ADMIN_COMMANDS } from '../bin/admin-commands.ts';
import { synopsis } from '../bin/command-table.ts';
import { hashApiKey } from '../shared/keys/api-key.ts';
import { createTestDatabase, type TestDatabase } from './support/servers.ts';

const execFileP = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const pgUrl = inject('realPgUrl');

let db: TestDatabase | null = null;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: join(ROOT, '.tmp', 'admin-cli-no-data'), ...(db ? { DATABASE_URL: db.url } : {}) };
  try {
    const { stdout, stderr } = await execFileP(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { cwd: ROOT, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function json<T>(...args: string[]): Promise<T> {
  const r = await cli(...args, '--json');
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  expect(r.stdout.trim().split('\n')).toHaveLength(1); // exactly one JSON object
  return JSON.parse(r.stdout) as T;
}

describe('admin CLI help (no database needed)', () => {
  it('--help (and `help`) prints every command of the table on stdout and exits 0', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stderr).toBe('');
      for (const c of ADMIN_COMMANDS) expect(r.stdout).toContain(synopsis(c));
    }
  });

  it('<command> --help prints that command with its options and exits 0; <group> --help lists the group', async () => {
    const r = await cli('org', 'suspend', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: npm run -s admin -- org suspend --org ID');
    expect(r.stdout).toMatch(/--org ID\s+the organisation id \(required\)/);
    const archive = await cli('link', 'archive', '--help');
    expect(archive.code).toBe(0);
    expect(archive.stdout).toContain('--code SHORT_CODE');
    const group = await cli('domain', '--help');
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('domain list --org ID');
    expect(group.stdout).not.toContain('org create');
  });

  it('an unknown command, a missing subcommand or a foreign option exits 2 with the usage on stderr and nothing on stdout', async () => {
    for (const args of [['frobnicate'], ['org'], [], ['org', 'create', '--host', 'x'], ['org', 'list', '--bogus']]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('usage: npm run -s admin --');
    }
  });
});

describe.skipIf(!pgUrl)('admin CLI listings on a real database', () => {
  let orgId = '';
  let secret = '';

  beforeAll(async () => {
    db = await createTestDatabase(pgUrl!);
    orgId = (await json<{ id: string }>('org', 'create', '--name', 'Listed\tOrg', '--plan', 'PRO')).id;
    secret = (await json<{ key: string }>('key', 'create', '--org', orgId, '--label', 'ci key', '--scopes', 'links:read')).key;
    await json('app', 'register', '--org', orgId, '--name', 'Acme iOS', '--platform', 'IOS', '--store-url', 'https://apps.example/id1');
    await json('domain', 'add', '--org', orgId, '--host', 'Go.Listed.Example', '--primary');
  }, 60_000);
  afterAll(async () => {
    await db?.drop();
    db = null;
  });

  it('org list: one JSON object with every organisation; a table otherwise', async () => {
    const { organizations } = await json<{ organizations: { id: string; name: string; plan: string; suspended: boolean }[] }>('org', 'list');
    expect(organizations).toEqual([expect.objectContaining({ id: orgId, name: 'Listed\tOrg', plan: 'PRO', suspended: false })]);
    const text = await cli('org', 'list');
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+PLAN\s+TIMEZONE\s+STATUS$/);
    expect(lines[1]).toMatch(new RegExp(`^${orgId}\\s+Listed Org\\s+PRO\\s+Europe/Berlin\\s+active$`));
  });

  it('key list: labels, scopes and status, never the key value or its hash', async () => {
    const listed = await cli('key', 'list', '--org', orgId, '--json');
    expect(listed.code).toBe(0);
    const { keys } = JSON.parse(listed.stdout) as { keys: Record<string, unknown>[] };
    expect(keys).toEqual([expect.objectContaining({ label: 'ci key', scopes: ['links:read'], revokedAt: null })]);
    const text = await cli('key', 'list', '--org', orgId);
    expect(text.stdout).toMatch(/^LABEL\s+STATUS\s+SCOPES\s+CREATED\nci key\s+active\s+links:read\s+\S+/);
    for (const out of [listed.stdout, text.stdout]) {
      expect(out).not.toContain(secret);
      expect(out).not.toContain(hashApiKey(secret));
    }
  });

  it('key create: the four default scopes without --scopes (never analytics:delete); --scopes gives others; an unknown scope exits 2', async () => {
    const scoped = (await json<{ id: string }>('org', 'create', '--name', 'Scoped', '--plan', 'PRO')).id;
    const plain = await json<{ scopes: string[] }>('key', 'create', '--org', scoped, '--label', 'plain');
    expect(plain.scopes).toEqual(['links:read', 'links:write', 'analytics:read', 'analytics:export']);
    const purger = await json<{ scopes: string[] }>('key', 'create', '--org', scoped, '--label', 'purger', '--scopes', 'analytics:delete, analytics:read');
    expect(purger.scopes).toEqual(['analytics:read', 'analytics:delete']);
    const bad = await cli('key', 'create', '--org', scoped, '--label', 'bad', '--scopes', 'links:read,analytics:wipe');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown scope(s) 'analytics:wipe'");
    expect(bad.stderr).toContain('analytics:delete');
    const text = await cli('key', 'list', '--org', scoped);
    expect(text.stdout).toMatch(/\nplain\s+active\s+links:read,links:write,analytics:read,analytics:export\s+\S+/);
    expect(text.stdout).toMatch(/\npurger\s+active\s+analytics:read,analytics:delete\s+\S+/);
    expect((await cli('key', 'create', '--help')).stdout).toContain('analytics:delete');
  });

  it('app list and domain list: one JSON object each, or a table', async () => {
    const { apps } = await json<{ apps: { name: string; platform: string; active: boolean; mobileAppId: string }[] }>('app', 'list', '--org', orgId);
    expect(apps).toEqual([expect.objectContaining({ name: 'Acme iOS', platform: 'IOS', active: true })]);
    expect((await cli('app', 'list', '--org', orgId)).stdout).toMatch(
      new RegExp(
        `^MOBILE APP ID\\s+PLATFORM\\s+NAME\\s+STATUS\\s+STORE URL\\n${apps[0]!.mobileAppId.replace(/[+/]/g, '\\$&')}\\s+IOS\\s+Acme iOS\\s+active\\s+https://apps.example/id1\\n$`,
      ),
    );

    const { domains } = await json<{ domains: { host: string; isPrimary: boolean; active: boolean }[] }>('domain', 'list', '--org', orgId);
    expect(domains).toEqual([expect.objectContaining({ host: 'go.listed.example', isPrimary: true, active: true })]);
    expect((await cli('domain', 'list', '--org', orgId)).stdout).toMatch(/^HOST\s+PRIMARY\s+STATUS\ngo\.listed\.example\s+yes\s+active\n$/);
  });

  it('domain add refuses a port or an invalid host name: exit 1, one message on stderr, nothing added', async () => {
    for (const [host, says] of [
      ['go.listed.example:443', 'port'],
      ['other.example:8080', 'port'],
      ['bad_name.example', 'not a valid host name'],
      ['https://go.example', 'not a host name'],
    ] as const) {
      const r = await cli('domain', 'add', '--org', orgId, '--host', host);
      expect(r.code, host).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n'), host).toHaveLength(1);
      expect(r.stderr).toContain('VE001');
      expect(r.stderr).toContain(says);
    }
    const { domains } = await json<{ domains: { host: string }[] }>('domain', 'list', '--org', orgId);
    expect(domains.map((d) => d.host)).toEqual(['go.listed.example']);
  });

  it('a listing of an unknown organisation fails with EN001 on stderr', async () => {
    const r = await cli('app', 'list', '--org', '00000000-0000-0000-0000-000000000000', '--json');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('EN001');
  });

  it('link archive and link restore flip isActive through the save path; a foreign or unknown code is EN001', async () => {
    const link = await json<{ shortCode: string; isActive: boolean }>(
      'link',
      'create',
      '--org',
      orgId,
      '--url',
      'https://example.com/a',
      '--by',
      'ops@example.com',
    );
    expect(link.isActive).toBe(true);
    const archived = await json<{ shortCode: string; isActive: boolean; url: string; updatedBy: string }>(
      'link',
      'archive',
      '--org',
      orgId,
      '--code',
      link.shortCode,
      '--by',
      'ops2@example.com',
    );
    expect(archived).toMatchObject({ shortCode: link.shortCode, isActive: false, url: 'https://example.com/a', updatedBy: 'ops2@example.com' });
    const [row] = await db!.sql<{ is_active: boolean }[]>`select is_active from links where short_code = ${link.shortCode}`;
    expect(row!.is_active).toBe(false);
    expect((await json<{ isActive: boolean }>('link', 'restore', '--org', orgId, '--code', link.shortCode)).isActive).toBe(true);
    const other = await json<{ id: string }>('org', 'create', '--name', 'Other');
    for (const [org, code] of [
      [other.id, link.shortCode],
      [orgId, 'nosuchcode1'],
    ] as const) {
      const r = await cli('link', 'archive', '--org', org, '--code', code);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('EN001');
    }
  });

  it('link delete removes the link for good: its row gone, its code kept as a tombstone with who deleted it, EN001 after', async () => {
    const link = await json<{ shortCode: string }>('link', 'create', '--org', orgId, '--url', 'https://example.com/gone', '--by', 'ops@example.com');
    const deleted = await json<{ shortCode: string; url: string }>('link', 'delete', '--org', orgId, '--code', link.shortCode, '--by', 'ops3@example.com');
    expect(deleted).toMatchObject({ shortCode: link.shortCode, url: 'https://example.com/gone' });
    const [tomb] = await db!.sql<{ deleted_by: string }[]>`select deleted_by from deleted_short_codes where short_code = ${link.shortCode}`;
    expect(tomb?.deleted_by).toBe('ops3@example.com');
    expect((await db!.sql`select 1 from links where short_code = ${link.shortCode}`).length).toBe(0);
    const again = await cli('link', 'delete', '--org', orgId, '--code', link.shortCode);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('EN001');
  });
});
