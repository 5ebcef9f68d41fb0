// Invariant: the admin CLI's `user` commands work against a plain database: an invite prints
// {"inviteUrl": …} on DASHBOARD_PUBLIC_URL, seats (members + pending invites) are a hard quota
// (QE001 SEATS), and reset-2fa turns 2FA off and ends the user's sessions.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { acceptInvite } from '../../shared/accounts/invites.ts';
import { createSession } from '../../shared/accounts/sessions.ts';
import { createTestDatabase, type TestDatabase } from '../support/servers.ts';

const run = promisify(execFile);
let db: TestDatabase;
let env: NodeJS.ProcessEnv;

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { env });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
  env = { PATH: process.env.PATH, DATABASE_URL: db.url, DASHBOARD_PUBLIC_URL: 'https://dash.example.test', LOG_LEVEL: 'silent' };
});
afterAll(async () => db?.drop());

describe('admin CLI: user commands', () => {
  it('invite prints the invite URL; past the seats it is QE001 SEATS; list, reset-2fa and remove', async () => {
    const org = JSON.parse((await admin('org', 'create', '--name', 'Solo', '--plan', 'FREE', '--json')).stdout) as { id: string };
    const invited = await admin('user', 'invite', '--org', org.id, '--email', 'Ann@Example.com', '--role', 'owner', '--json');
    expect(invited.code, invited.stderr).toBe(0);
    const out = JSON.parse(invited.stdout) as { inviteUrl: string; email: string; role: string };
    expect(out).toMatchObject({ email: 'ann@example.com', role: 'owner' });
    expect(out.inviteUrl).toMatch(/^https:\/\/dash\.example\.test\/invite#[A-Za-z0-9_-]{43}$/);

    // FREE has one seat, and the pending invite holds it.
    const second = await admin('user', 'invite', '--org', org.id, '--email', 'bob@example.com', '--role', 'viewer', '--json');
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('QE001: Plan quota SEATS exceeded (1/1)');

    const token = out.inviteUrl.split('#')[1]!;
    const { user } = await acceptInvite(db.sql, token, { password: 'a long enough passphrase' });
    await db.sql`update users set totp_secret = 'JBSWY3DPEHPK3PXP' where id = ${user.id}`;
    await createSession(db.sql, { userId: user.id, orgId: org.id, stage: 'full', userAgent: null });

    const listed = JSON.parse((await admin('user', 'list', '--org', org.id, '--json')).stdout) as { users: unknown[]; invites: unknown[] };
    expect(listed.users).toEqual([expect.objectContaining({ email: 'ann@example.com', role: 'owner', twoFactor: true })]);
    expect(listed.invites).toEqual([]);
    expect(JSON.stringify(listed)).not.toMatch(/argon2|JBSWY3DPEHPK3PXP/);

    const reset = JSON.parse((await admin('user', 'reset-2fa', '--email', 'ann@example.com', '--json')).stdout);
    expect(reset).toEqual({ email: 'ann@example.com', twoFactor: false, sessionsEnded: 1 });
    const [row] = await db.sql<{ totp_secret: string | null }[]>`select totp_secret from users where id = ${user.id}`;
    expect(row!.totp_secret).toBeNull();

    const last = await admin('user', 'remove', '--org', org.id, '--email', 'ann@example.com');
    expect(last.code).toBe(1);
    expect(last.stderr).toContain('An organisation keeps at least one owner');
    const badRole = await admin('user', 'invite', '--org', org.id, '--email', 'x@example.com', '--role', 'god');
    expect(badRole.code).toBe(2);
  }, 60_000);
});
