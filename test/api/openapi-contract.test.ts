// Invariant: the OpenAPI document is a contract a generated client can rely on. Every operation
// has an operationId and declares its query parameters; a client generated from the live document
// with openapi-typescript drives every operation with no casts under strict type-checking; and a
// live answer of every declared status (all but 500, which no request can honestly provoke)
// validates against the document's schema, content type and required headers (Retry-After).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootApi, type ApiFixture } from '../support/api-fixture.ts';
import { freePort } from '../support/service-process.ts';

const execFileP = promisify(execFile);
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

type Media = { schema?: object; 'x-item-schema'?: object };
type HeaderSpec = { required?: boolean; schema: object };
type ResponseSpec = { headers?: Record<string, HeaderSpec>; content?: Record<string, Media> };
type Operation = { operationId?: string; parameters?: { name: string; in: string }[]; responses: Record<string, ResponseSpec> };
type Document = {
  openapi: string;
  info: { title: string; version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: object;
};

const PUBLIC_URL = 'https://api.example.test';
const SAVE = '/link/external/v1/shortenedUrl/save';
const BULK = '/link/external/v1/shortenedUrl/bulkSave';
const RESOLVE = '/link/external/v1/shortenedUrl/resolve';
const LIST = '/link/external/v1/shortenedUrl';
const EVENTS = '/link/external/v1/analytics/events';
const EXPORT = '/link/external/v1/analytics/events/export';
const AGGREGATES = '/link/external/v1/analytics/aggregates';
const DELETE = '/link/external/v1/shortenedUrl/delete';
const PURGE = '/link/external/v1/analytics/events/purge';
/** Every scope, analytics:delete included (a key gets it only when given it). */
const ALL_SCOPES = 'links:read,links:write,analytics:read,analytics:export,analytics:delete';
const today = new Date().toISOString().slice(0, 10);

let fx: ApiFixture;
let down: ApiFixture;
let doc: Document;
/** The same document, as openapi-typescript reads it. */
let raw: OpenAPI3;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const covered = new Set<string>();

beforeAll(async () => {
  // A second service whose ClickHouse is a closed port: its analytics reads answer 503.
  [fx, down] = await Promise.all([bootApi({ API_PUBLIC_URL: PUBLIC_URL }), bootApi({ CLICKHOUSE_URL: `http://127.0.0.1:${await freePort()}` })]);
  const text = await (await fetch(`${fx.svc.api}/link/external/v1/openapi.json`, { headers: { 'x-forwarded-host': 'evil.test' } })).text();
  doc = JSON.parse(text) as Document;
  raw = JSON.parse(text) as OpenAPI3;
}, 180_000);

afterAll(async () => {
  await Promise.all([fx?.close(), down?.close()]);
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function call(base: string, key: string | null, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key !== null) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

/** Validates one live answer against the document and records its (operation, status) as covered. */
function conforms(method: 'get' | 'post', path: string, a: Answer): void {
  const pathOnly = path.split('?')[0] ?? path;
  const op = doc.paths[pathOnly]?.[method];
  expect(op, `${method} ${pathOnly} is documented`).toBeDefined();
  const spec = op!.responses[String(a.status)];
  expect(spec, `${method} ${pathOnly} declares status ${a.status} (body ${a.text.slice(0, 200)})`).toBeDefined();
  const contentType = (a.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const media = spec!.content?.[contentType];
  expect(media, `${method} ${pathOnly} ${a.status} declares ${contentType}`).toBeDefined();
  for (const [name, header] of Object.entries(spec!.headers ?? {})) {
    const value = a.headers.get(name);
    if (header.required) expect(value, `${a.status} carries ${name}`).not.toBeNull();
    if (value !== null) expect(ajv.validate({ ...header.schema }, Number(value)), `${name}: ${value}`).toBe(true);
  }
  const validate = (schema: object, value: unknown, what: string) => {
    const ok = ajv.validate({ ...schema, components: doc.components }, value);
    expect(ok, `${what}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
  };
  if (contentType === 'application/json') validate(media!.schema!, JSON.parse(a.text), `${method} ${pathOnly} ${a.status}`);
  else if (contentType === 'application/x-ndjson') {
    for (const line of a.text.split('\n').filter((l) => l !== '')) validate(media!['x-item-schema']!, JSON.parse(line), 'NDJSON line');
  } else validate(media!.schema!, a.text, `${contentType} body`);
  covered.add(`${method} ${pathOnly} ${a.status}`);
}

describe('OpenAPI document as a contract', () => {
  it('takes servers from configuration, never from the request', () => {
    expect(doc.servers).toEqual([{ url: PUBLIC_URL }]);
  });

  it('gives every operation a unique operationId and declares the analytics query parameters', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const names = (path: string) => (doc.paths[path]?.get?.parameters ?? []).map((p) => p.name).sort();
    expect(names(EVENTS)).toEqual(['afterEventId', 'bots', 'clickSource', 'cursor', 'eventType', 'from', 'limit', 'shortCode', 'since', 'to']);
    expect(names(EXPORT)).toEqual(['bots', 'clickSource', 'eventType', 'format', 'from', 'shortCode', 'to']);
    expect(names(LIST)).toEqual(['page', 'query', 'size']);
    expect(names(AGGREGATES)).toEqual([
      'botCategory',
      'bots',
      'browserName',
      'clickSource',
      'countryCode',
      'deviceType',
      'eventType',
      'from',
      'groupBy',
      'interval',
      'limit',
      'metric',
      'osName',
      'referrerDomain',
      'shortCode',
      'to',
      'utmCampaign',
      'utmMedium',
      'utmSource',
    ]);
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        for (const status of ['429', '503']) {
          if (op.responses[status]) expect(op.responses[status]!.headers?.['Retry-After']?.required, `${op.operationId} ${status}`).toBe(true);
        }
      }
    }
  });

  it('generates a client that drives every operation, type-checked strictly with no casts', async () => {
    const source = readFileSync(join(import.meta.dirname, 'openapi-client', 'driver.ts'), 'utf8');
    const code = source
      .split('\n')
      .filter((l) => !l.trim().startsWith('//'))
      .join('\n');
    expect(code).not.toMatch(/\sas\s/);
    expect(code).not.toMatch(/\bany\b/);
    mkdirSync('.tmp', { recursive: true });
    const dir = mkdtempSync(join(process.cwd(), '.tmp', 'openapi-client-'));
    try {
      writeFileSync(join(dir, 'schema.d.ts'), astToString(await openapiTS(raw)));
      copyFileSync(join(import.meta.dirname, 'openapi-client', 'driver.ts'), join(dir, 'driver.ts'));
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            lib: ['ES2022', 'DOM'],
            types: [],
            strict: true,
            noUncheckedIndexedAccess: true,
            exactOptionalPropertyTypes: true,
            noEmit: true,
            skipLibCheck: true,
          },
          files: ['driver.ts'],
        }),
      );
      const tsc = await execFileP(process.execPath, ['node_modules/typescript/bin/tsc', '-p', dir]).then(
        () => '',
        (err: { stdout?: string }) => err.stdout ?? String(err),
      );
      expect(tsc).toBe('');

      const org = await fx.org('BUSINESS', { scopes: ALL_SCOPES, limits: ['--crud-per-min', '8', '--analytics-per-min', '1000', '--export-per-min', '1000'] });
      const driver = (await import(pathToFileURL(join(dir, 'driver.ts')).href)) as {
        drive(base: string, key: string, today: string): Promise<Record<string, unknown>>;
      };
      const result = await driver.drive(fx.svc.api, org.key, today);
      expect(result).toMatchObject({
        savedShortCode: 'driver-0001',
        saveErrorCode: 'SML002',
        bulkSuccess: 1,
        bulkFirstFailureCode: 'SML002',
        listedTotal: 1,
        browsedHasMore: false,
        aggregateTotal: 0,
        firstBucketKey: expect.stringMatching(new RegExp(`^${today}T00:00:00[+-]\\d{2}:\\d{2}$`)),
        topKeys: [],
        purgeDryRunEvents: 0,
        deletedShortCode: 'driver-0001',
      });
      expect(typeof result.csv).toBe('string');
      expect(String(result.rateLimitedRetryAfter)).toMatch(/^\d+$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('answers every declared status (but 500) in the documented shape', async () => {
    const api = fx.svc.api;
    const business = await fx.org('BUSINESS');
    const free = await fx.org('FREE');
    const readOnly = await fx.org('BUSINESS', { scopes: 'links:read' });
    const writeOnly = await fx.org('BUSINESS', { scopes: 'links:write' });
    const starved = await fx.org('BUSINESS', { limits: ['--crud-per-min', '1', '--analytics-per-min', '1', '--export-per-min', '1'] });
    const purger = await fx.org('BUSINESS', { scopes: ALL_SCOPES });
    const starvedPurger = await fx.org('BUSINESS', { scopes: ALL_SCOPES, limits: ['--crud-per-min', '1'] });
    const k = business.key;
    const range = `from=${today}&to=${today}`;

    await call(api, k, 'POST', SAVE, { url: 'https://example.com/contract', shortCode: 'contract-01' });
    // A click, so browse, sync and export carry one event.
    await fetch(`${fx.svc.redirect}/contract-01`, { redirect: 'manual' });

    conforms('post', SAVE, await call(api, k, 'POST', SAVE, { url: 'https://example.com/a' }));
    conforms('post', SAVE, await call(api, k, 'POST', SAVE, { url: '' }));
    conforms('post', SAVE, await call(api, 'nope', 'POST', SAVE, { url: 'https://example.com/a' }));
    conforms('post', SAVE, await call(api, readOnly.key, 'POST', SAVE, { url: 'https://example.com/a' }));
    conforms('post', SAVE, await call(api, free.key, 'POST', SAVE, { url: 'https://example.com/a', enableCustomMetadata: true, customMetadataTitle: 't' }));

    conforms('post', BULK, await call(api, k, 'POST', BULK, { data: [{ url: 'https://example.com/b' }, { url: 'nope' }] }));
    conforms('post', BULK, await call(api, k, 'POST', BULK, { data: [] }));
    conforms('post', BULK, await call(api, null, 'POST', BULK, { data: [] }));
    conforms('post', BULK, await call(api, readOnly.key, 'POST', BULK, { data: [{ url: 'https://example.com/b' }] }));

    conforms('post', RESOLVE, await call(api, k, 'POST', RESOLVE, { shortCode: 'contract-01', visitor: { userAgent: 'curl/8' } }));
    conforms('post', RESOLVE, await call(api, k, 'POST', RESOLVE, {}));
    conforms('post', RESOLVE, await call(api, 'nope', 'POST', RESOLVE, { shortCode: 'contract-01' }));
    conforms('post', RESOLVE, await call(api, writeOnly.key, 'POST', RESOLVE, { shortCode: 'contract-01' }));

    conforms('get', LIST, await call(api, k, 'GET', `${LIST}?size=5`));
    conforms('get', LIST, await call(api, k, 'GET', `${LIST}?size=0`));
    conforms('get', LIST, await call(api, 'nope', 'GET', LIST));
    conforms('get', LIST, await call(api, writeOnly.key, 'GET', LIST));

    conforms('get', EVENTS, await call(api, k, 'GET', `${EVENTS}?${range}`));
    conforms('get', EVENTS, await call(api, k, 'GET', `${EVENTS}?since=${today}T00:00:00Z`));
    conforms('get', EVENTS, await call(api, k, 'GET', EVENTS));
    conforms('get', EVENTS, await call(api, 'nope', 'GET', `${EVENTS}?${range}`));
    conforms('get', EVENTS, await call(api, writeOnly.key, 'GET', `${EVENTS}?${range}`));

    conforms('get', AGGREGATES, await call(api, k, 'GET', `${AGGREGATES}?${range}&groupBy=time`));
    conforms('get', AGGREGATES, await call(api, k, 'GET', `${AGGREGATES}?${range}&groupBy=shortCode&limit=100`));
    conforms('get', AGGREGATES, await call(api, k, 'GET', `${AGGREGATES}?${range}&groupBy=browserName&limit=101`));
    conforms('get', AGGREGATES, await call(api, k, 'GET', `${AGGREGATES}?${range}&groupBy=city`));
    conforms('get', AGGREGATES, await call(api, 'nope', 'GET', `${AGGREGATES}?${range}&groupBy=time`));
    conforms('get', AGGREGATES, await call(api, writeOnly.key, 'GET', `${AGGREGATES}?${range}&groupBy=time`));

    conforms('get', EXPORT, await call(api, k, 'GET', `${EXPORT}?${range}`));
    conforms('get', EXPORT, await call(api, k, 'GET', `${EXPORT}?${range}&format=csv`));
    conforms('get', EXPORT, await call(api, k, 'GET', EXPORT));
    conforms('get', EXPORT, await call(api, 'nope', 'GET', `${EXPORT}?${range}`));
    conforms('get', EXPORT, await call(api, free.key, 'GET', `${EXPORT}?${range}`));
    conforms('get', EXPORT, await call(api, writeOnly.key, 'GET', `${EXPORT}?${range}`));

    await call(api, k, 'POST', SAVE, { url: 'https://example.com/delete-me', shortCode: 'contract-del' });
    conforms('post', DELETE, await call(api, k, 'POST', DELETE, { shortCode: 'contract-del' }));
    conforms('post', DELETE, await call(api, k, 'POST', DELETE, {}));
    conforms('post', DELETE, await call(api, k, 'POST', DELETE, { shortCode: 'contract-del' }));
    conforms('post', DELETE, await call(api, 'nope', 'POST', DELETE, { shortCode: 'contract-01' }));
    conforms('post', DELETE, await call(api, readOnly.key, 'POST', DELETE, { shortCode: 'contract-01' }));

    conforms('post', PURGE, await call(api, purger.key, 'POST', PURGE, { from: today, to: today, dryRun: true }));
    conforms('post', PURGE, await call(api, purger.key, 'POST', PURGE, { from: today }));
    conforms('post', PURGE, await call(api, null, 'POST', PURGE, { from: today, to: today }));
    conforms('post', PURGE, await call(api, k, 'POST', PURGE, { from: today, to: today }));
    await call(api, starvedPurger.key, 'GET', LIST);
    conforms('post', PURGE, await call(api, starvedPurger.key, 'POST', PURGE, { from: today, to: today, dryRun: true }));

    // One token per scope: the first request takes it, the next is refused with Retry-After.
    await call(api, starved.key, 'GET', LIST);
    conforms('post', SAVE, await call(api, starved.key, 'POST', SAVE, { url: 'https://example.com/a' }));
    conforms('post', BULK, await call(api, starved.key, 'POST', BULK, { data: [{ url: 'https://example.com/a' }] }));
    conforms('get', LIST, await call(api, starved.key, 'GET', LIST));
    conforms('post', RESOLVE, await call(api, starved.key, 'POST', RESOLVE, { shortCode: 'contract-01' }));
    await call(api, starved.key, 'GET', `${EVENTS}?${range}`);
    conforms('get', EVENTS, await call(api, starved.key, 'GET', `${EVENTS}?${range}`));
    await call(api, starved.key, 'GET', `${EXPORT}?${range}`);
    conforms('get', EXPORT, await call(api, starved.key, 'GET', `${EXPORT}?${range}`));
    conforms('get', AGGREGATES, await call(api, starved.key, 'GET', `${AGGREGATES}?${range}&groupBy=time`));
    conforms('post', DELETE, await call(api, starved.key, 'POST', DELETE, { shortCode: 'contract-01' }));

    // ClickHouse unreachable: analytics reads answer 503 SML006 with Retry-After.
    const outage = await down.org('BUSINESS');
    conforms('get', EVENTS, await call(down.svc.api, outage.key, 'GET', `${EVENTS}?${range}`));
    conforms('get', EXPORT, await call(down.svc.api, outage.key, 'GET', `${EXPORT}?${range}`));
    const started = Date.now();
    const unavailable = await call(down.svc.api, outage.key, 'GET', `${AGGREGATES}?${range}&groupBy=time`);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('1');
    conforms('get', AGGREGATES, unavailable);
    // A purge (and a delete that purges) needs the analytics store: 503, and the link is kept.
    const outagePurger = await down.org('BUSINESS', { scopes: ALL_SCOPES });
    conforms('post', PURGE, await call(down.svc.api, outagePurger.key, 'POST', PURGE, { from: today, to: today }));
    await call(down.svc.api, outagePurger.key, 'POST', SAVE, { url: 'https://example.com/kept', shortCode: 'contract-kept' });
    conforms('post', DELETE, await call(down.svc.api, outagePurger.key, 'POST', DELETE, { shortCode: 'contract-kept', purgeAnalytics: true }));
    expect((await fetch(`${down.svc.redirect}/contract-kept`, { redirect: 'manual' })).status).toBe(302);

    const declared = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) =>
        Object.keys(op.responses)
          .filter((s) => s !== '500')
          .map((s) => `${method} ${path} ${s}`),
      ),
    );
    expect([...covered].sort()).toEqual(expect.arrayContaining(declared.sort()));
    expect(declared.filter((d) => !covered.has(d))).toEqual([]);
  }, 180_000);
});
