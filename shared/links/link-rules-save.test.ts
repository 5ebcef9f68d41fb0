// Invariant: the link-rule members (expiresAt, maxClicks, expiredUrl, password, rules) are
// checked, merged like the others (absent keeps, null clears; "" removes a password), stored (the
// password as an argon2id hash only), answered when set (passwordProtected, never the password)
// and accepted by bulk save. Against a real migrated database.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { verifyPassword } from '../accounts/passwords.ts';
import { AppErrorList, type AppError } from '../errors/app-error.ts';
import { createOrganization } from '../orgs/org-repository.ts';
import { bulkSaveLinks } from './bulk-save-links.ts';
import { findLinkByCode } from './link-repository.ts';
import { linkResponseSchema } from './link-response.ts';
import { saveLink, type Actor, type LinkServiceDeps } from './save-link.ts';

let db: TestDatabase;
let actor: Actor;
let deps: LinkServiceDeps;
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
  deps = { sql: db.sql, shortLinkBase: 'https://sho.rt', now: Date.now };
  actor = { org: await createOrganization(db.sql, { name: 'rules-save', plan: 'BUSINESS' }), attribution: 'api-key:test', via: 'EXTERNAL' };
});
afterAll(async () => db?.drop());

async function errorsOf(body: unknown): Promise<readonly AppError[]> {
  try {
    await saveLink(deps, actor, body);
  } catch (err) {
    if (err instanceof AppErrorList) return err.errors;
    if (err instanceof Error && 'code' in err) return [err as AppError];
    throw err;
  }
  throw new Error('the save succeeded');
}

const RULES = [
  { conditions: [{ type: 'device', value: 'IOS' }], url: 'https://ios.example/' },
  {
    conditions: [
      { type: 'countryCode', value: 'de' },
      { type: 'language', value: 'DE' },
    ],
    url: 'https://de.example/',
  },
  { conditions: [{ type: 'queryParam', value: 'ref=mail' }], url: 'https://mail.example/' },
  {
    conditions: [
      { type: 'after', value: '2026-12-01T01:00:00+01:00' },
      { type: 'before', value: '2027-01-01T00:00:00Z' },
    ],
    url: 'https://december.example/',
  },
];

describe('link rules on the save path', () => {
  it('stores every member, answers them normalised, and the password only as passwordProtected', async () => {
    const { view } = await saveLink(deps, actor, {
      url: 'https://e.example/r',
      expiresAt: '2030-01-02T03:04:05.123Z',
      maxClicks: 500,
      expiredUrl: 'https://e.example/gone',
      password: 'correct horse',
      rules: RULES,
    });
    linkResponseSchema.parse(view);
    expect(view).toMatchObject({ expiresAt: '2030-01-02T03:04:05.123Z', maxClicks: 500, expiredUrl: 'https://e.example/gone', passwordProtected: true });
    expect(JSON.stringify(view)).not.toContain('correct horse');
    expect(view.rules?.[1]?.conditions).toEqual([
      { type: 'countryCode', value: 'DE' },
      { type: 'language', value: 'de' },
    ]);
    expect(view.rules?.[3]?.conditions[0]).toEqual({ type: 'after', value: '2026-12-01T00:00:00.000Z' });

    const [row] = await db.sql<{ password_hash: string }[]>`select password_hash from links where short_code = ${view.shortCode}`;
    expect(row?.password_hash.startsWith('$argon2id$')).toBe(true);
    expect(await verifyPassword(row?.password_hash ?? null, 'correct horse')).toBe(true);
    const link = await findLinkByCode(db.sql, view.shortCode);
    expect(link?.compiledRules.rules).toHaveLength(4);
    expect(link?.compiledRules.needsCountry).toBe(true);
  });

  it('omits every unset member, and a link without a country rule needs no country', async () => {
    const { view } = await saveLink(deps, actor, { url: 'https://e.example/plain', rules: [RULES[0]] });
    for (const member of ['expiresAt', 'maxClicks', 'expiredUrl', 'passwordProtected']) expect(view).not.toHaveProperty(member);
    expect((await findLinkByCode(db.sql, view.shortCode))?.compiledRules.needsCountry).toBe(false);
  });

  it('merges on update: absent keeps, null clears, "" removes the password, a new password replaces the hash', async () => {
    const { view } = await saveLink(deps, actor, {
      url: 'https://e.example/m',
      maxClicks: 3,
      expiresAt: '2031-01-01T00:00:00Z',
      password: 'first-pass',
      rules: RULES,
    });
    const code = view.shortCode;
    const kept = (await saveLink(deps, actor, { url: 'https://e.example/m', shortCode: code })).view;
    expect(kept).toMatchObject({ maxClicks: 3, expiresAt: '2031-01-01T00:00:00Z', passwordProtected: true });
    expect(kept.rules).toHaveLength(4);

    const [before] = await db.sql<{ password_hash: string }[]>`select password_hash from links where short_code = ${code}`;
    await saveLink(deps, actor, { url: 'https://e.example/m', shortCode: code, password: 'second-pass' });
    const [after] = await db.sql<{ password_hash: string }[]>`select password_hash from links where short_code = ${code}`;
    expect(after?.password_hash).not.toBe(before?.password_hash);
    expect(await verifyPassword(after?.password_hash ?? null, 'second-pass')).toBe(true);

    const cleared = (await saveLink(deps, actor, { url: 'https://e.example/m', shortCode: code, maxClicks: null, expiresAt: null, password: '', rules: null }))
      .view;
    for (const member of ['expiresAt', 'maxClicks', 'passwordProtected', 'rules']) expect(cleared).not.toHaveProperty(member);
  });

  it('accepts an expiresAt in the past', async () => {
    const { view } = await saveLink(deps, actor, { url: 'https://e.example/p', expiresAt: '2001-01-01T00:00:00Z' });
    expect(view.expiresAt).toBe('2001-01-01T00:00:00Z');
  });

  it('reads a zone-less expiresAt as UTC, like the same instant with its offset', async () => {
    const zoneless = await saveLink(deps, actor, { url: 'https://e.example/z', expiresAt: '2099-06-01T12:00:00' });
    expect(zoneless.view.expiresAt).toBe('2099-06-01T12:00:00Z');
    const offset = await saveLink(deps, actor, { url: 'https://e.example/o', expiresAt: '2099-06-01T14:00:00+02:00' });
    expect(offset.view.expiresAt).toBe('2099-06-01T12:00:00Z');
    const fraction = await saveLink(deps, actor, { url: 'https://e.example/f', expiresAt: '2099-06-01T12:00:00.250' });
    expect(fraction.view.expiresAt).toBe('2099-06-01T12:00:00.250Z');
    expect((await errorsOf({ url: 'https://e.example/n', expiresAt: '2099-06-01' }))[0]?.message).toContain('expiresAt');
  });

  it('answers an invalid rule with VE001 naming its path', async () => {
    const bad = [...RULES, { conditions: [{ type: 'planet', value: 'mars' }], url: 'https://x.example/' }];
    const [unknownType] = await errorsOf({ url: 'https://e.example/', rules: bad });
    expect(unknownType?.code).toBe('VE001');
    expect(unknownType?.message).toContain('rules[4].conditions[0].type');

    const cases: [unknown, string][] = [
      [[{ conditions: [{ type: 'device', value: 'PHONE' }], url: 'https://x.example/' }], 'rules[0].conditions[0].value'],
      [[RULES[0], { conditions: [{ type: 'countryCode', value: 'DEU' }], url: 'https://x.example/' }], 'rules[1].conditions[0].value'],
      [[{ conditions: [{ type: 'language', value: 'en-US!' }], url: 'https://x.example/' }], 'rules[0].conditions[0].value'],
      [[{ conditions: [{ type: 'queryParam', value: '=x' }], url: 'https://x.example/' }], 'rules[0].conditions[0].value'],
      [[{ conditions: [{ type: 'after', value: 'tomorrow' }], url: 'https://x.example/' }], 'rules[0].conditions[0].value'],
      [[{ conditions: [{ type: 'before', value: '2026-01-01T00:00:00' }], url: 'https://x.example/' }], 'rules[0].conditions[0].value'],
      [[{ conditions: [], url: 'https://x.example/' }], 'rules[0].conditions'],
      [[{ conditions: [{ type: 'device', value: 'IOS' }], url: 'javascript:alert(1)' }], 'rules[0].url'],
      [[{ conditions: [{ type: 'device', value: 7 }], url: 'https://x.example/' }], 'rules[0].conditions[0].value'],
      [Array.from({ length: 21 }, () => RULES[0]), 'rules'],
      ['not a list', 'rules'],
    ];
    for (const [rules, path] of cases) {
      const errors = await errorsOf({ url: 'https://e.example/', rules });
      expect(errors.map((e) => e.code)).toEqual(['VE001']);
      expect(errors[0]?.message.startsWith(path)).toBe(true);
    }
  });

  it('checks the other members: password length, maxClicks, expiresAt, expiredUrl', async () => {
    expect((await errorsOf({ url: 'https://e.example/', password: 'short' }))[0]?.message).toBe('password: size must be between 8 and 128');
    expect((await errorsOf({ url: 'https://e.example/', password: 'x'.repeat(129) }))[0]?.code).toBe('SML002');
    expect((await errorsOf({ url: 'https://e.example/', maxClicks: 0 }))[0]?.code).toBe('SML002');
    expect((await errorsOf({ url: 'https://e.example/', maxClicks: 1.5 }))[0]?.code).toBe('VE001');
    expect((await errorsOf({ url: 'https://e.example/', expiresAt: 'soon' }))[0]?.message).toContain('expiresAt');
    expect((await errorsOf({ url: 'https://e.example/', expiredUrl: 'ftp://x.example/' }))[0]?.message).toContain('expiredUrl');
  });

  it('bulk save accepts the members too', async () => {
    const result = await bulkSaveLinks(
      deps,
      actor,
      {
        data: [
          { url: 'https://e.example/b1', maxClicks: 10, password: 'bulk-secret', rules: RULES },
          { url: 'https://e.example/b2', rules: [{ conditions: [{ type: 'nope', value: '' }], url: 'https://x.example/' }] },
        ],
      },
      {
        error: (obj) => {
          throw obj.err;
        },
      },
    );
    expect(result.bulkSaveSummary).toEqual({ successCount: 1, failureCount: 1 });
    expect(result.failureRecords[0]?.errors[0]?.message).toContain('rules[0].conditions[0].type');
    const link = await findLinkByCode(db.sql, result.successRecords[0]?.shortCode ?? '');
    expect(link).toMatchObject({ maxClicks: 10 });
    expect(link?.rules).toHaveLength(4);
    expect(link?.passwordHash?.startsWith('$argon2id$')).toBe(true);
  });
});
