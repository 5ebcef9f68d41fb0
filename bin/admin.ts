// Invariant: the admin command line does what the spec calls dashboard-only, against the same
// DATA_DIR / DATABASE_URL as the server (attaching to a running embedded cluster). It needs no
// bus: every change queues its invalidation in the outbox in its own transaction, and the
// running servers' relays publish it. With --json it prints exactly one JSON object on stdout;
// any error exits non-zero with one line on stderr.
import { parseArgs } from 'node:util';
import { registerApp, removeApp, updateStoreUrl } from '../shared/apps/mobile-app-repository.ts';
import { isPlatform } from '../shared/apps/platform.ts';
import { commonSchema, loadConfigOrExit } from '../shared/config/config.ts';
import { addDomain, removeDomain } from '../shared/domains/domain-repository.ts';
import { AppError, AppErrorList } from '../shared/errors/app-error.ts';
import { isScope, SCOPES, type Scope } from '../shared/keys/api-key.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../shared/keys/key-repository.ts';
import { saveLink } from '../shared/links/save-link.ts';
import { isHttpUrl } from '../shared/links/url-rules.ts';
import { createOrganization, getOrganization, setLimits, setPlan, setSuspended } from '../shared/orgs/org-repository.ts';
import { isPlan, type Plan } from '../shared/orgs/plans.ts';
import { usageReport } from '../shared/quotas/usage-report.ts';
import { openBackends, type Backends } from '../shared/runtime/open-backends.ts';

class UsageError extends Error {}

const USAGE = `usage: npm run -s admin -- <command> [options] [--json]
  org create --name N [--plan FREE|PRO|BUSINESS|ENTERPRISE] [--timezone Europe/Berlin]
  org set-plan --org ID --plan P
  org set-limits --org ID [--links-per-month N] [--clicks-per-month N] [--crud-per-min N] [--analytics-per-min N] [--export-per-min N]   ('default' clears one)
  org suspend --org ID [--off]
  key create --org ID --label L [--scopes ${SCOPES.join(',')}]
  key revoke --org ID --label L
  key list --org ID
  app register --org ID --name N --platform IOS|ANDROID|WEB --store-url U
  app update --org ID --app MOBILE_APP_ID --store-url U
  app remove --org ID --app MOBILE_APP_ID
  domain add --org ID --host H [--primary]
  domain remove --org ID --host H
  link create --org ID --url U --by email@example.com
  usage --org ID`;

type Values = Record<string, string | boolean | undefined>;

function need(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v;
}

function plan(value: string): Plan {
  const p = value.toUpperCase();
  if (!isPlan(p)) throw new UsageError(`--plan must be one of FREE, PRO, BUSINESS, ENTERPRISE`);
  return p;
}

function storeUrl(value: string): string {
  if (!isHttpUrl(value)) throw new UsageError('--store-url must be an absolute http(s) URL');
  return value;
}

function limit(values: Values, name: string): number | null | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (v === 'default') return null;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer or 'default'`);
  return Number(v);
}

const OPTIONS = {
  json: { type: 'boolean' },
  name: { type: 'string' },
  plan: { type: 'string' },
  timezone: { type: 'string' },
  org: { type: 'string' },
  label: { type: 'string' },
  scopes: { type: 'string' },
  platform: { type: 'string' },
  'store-url': { type: 'string' },
  app: { type: 'string' },
  host: { type: 'string' },
  primary: { type: 'boolean' },
  url: { type: 'string' },
  by: { type: 'string' },
  off: { type: 'boolean' },
  'links-per-month': { type: 'string' },
  'clicks-per-month': { type: 'string' },
  'crud-per-min': { type: 'string' },
  'analytics-per-min': { type: 'string' },
  'export-per-min': { type: 'string' },
} as const;

type Result = { json: object; text: string };

async function run(b: Backends, command: string, values: Values): Promise<Result> {
  const sql = b.db.sql;
  const orgOf = () => getOrganization(sql, need(values, 'org'));
  const orgJson = (o: Awaited<ReturnType<typeof orgOf>>) => ({ id: o.id, name: o.name, plan: o.plan, timezone: o.timezone, suspended: o.suspended, limits: o.limits, overrides: o.overrides });
  switch (command) {
    case 'org create': {
      const o = await createOrganization(sql, { name: need(values, 'name'), plan: plan(String(values.plan ?? 'FREE')), timezone: values.timezone as string | undefined });
      return { json: orgJson(o), text: `organisation ${o.id} (${o.plan}, ${o.timezone})` };
    }
    case 'org set-plan': {
      const o = await setPlan(sql, need(values, 'org'), plan(need(values, 'plan')));
      return { json: orgJson(o), text: `organisation ${o.id} is now on ${o.plan}` };
    }
    case 'org set-limits': {
      const o = await setLimits(sql, need(values, 'org'), {
        linksPerMonth: limit(values, 'links-per-month'),
        clicksPerMonth: limit(values, 'clicks-per-month'),
        crudPerMin: limit(values, 'crud-per-min'),
        analyticsPerMin: limit(values, 'analytics-per-min'),
        exportPerMin: limit(values, 'export-per-min'),
      });
      return { json: orgJson(o), text: `limits of ${o.id}: ${JSON.stringify(o.limits)}` };
    }
    case 'org suspend': {
      const o = await setSuspended(sql, need(values, 'org'), values.off !== true);
      return { json: orgJson(o), text: `organisation ${o.id} ${o.suspended ? 'suspended' : 'active'}` };
    }
    case 'key create': {
      const o = await orgOf();
      const scopes = values.scopes === undefined ? [...SCOPES] : String(values.scopes).split(',').map((s) => s.trim());
      const bad = scopes.filter((s) => !isScope(s));
      if (bad.length) throw new UsageError(`unknown scope(s) ${bad.join(', ')}; valid: ${SCOPES.join(', ')}`);
      const k = await createApiKey(sql, o.id, need(values, 'label'), scopes as Scope[]);
      return { json: k, text: `key '${k.label}' (${k.scopes.join(', ')}), shown once:\n${k.key}` };
    }
    case 'key revoke': {
      const o = await orgOf();
      const k = await revokeApiKey(sql, o.id, need(values, 'label'));
      return { json: k, text: `key '${k.label}' revoked` };
    }
    case 'key list': {
      const o = await orgOf();
      const keys = await listApiKeys(sql, o.id);
      return { json: { keys }, text: keys.map((k) => `${k.label}\t${k.revokedAt ? 'revoked' : 'active'}\t${k.scopes.join(',')}`).join('\n') || '(no keys)' };
    }
    case 'app register': {
      const o = await orgOf();
      const platform = need(values, 'platform').toUpperCase();
      if (!isPlatform(platform)) throw new UsageError('--platform must be IOS, ANDROID or WEB');
      const a = await registerApp(sql, { orgId: o.id, name: need(values, 'name'), platform, storeUrl: storeUrl(need(values, 'store-url')) });
      return { json: a, text: `app ${a.mobileAppId} (${a.platform})` };
    }
    case 'app update': {
      const a = await updateStoreUrl(sql, need(values, 'org'), need(values, 'app'), storeUrl(need(values, 'store-url')));
      return { json: a, text: `app ${a.mobileAppId} store URL set` };
    }
    case 'app remove': {
      const a = await removeApp(sql, need(values, 'org'), need(values, 'app'));
      return { json: a, text: `app ${a.mobileAppId} removed (inactive)` };
    }
    case 'domain add': {
      const d = await addDomain(sql, await orgOf(), need(values, 'host'), values.primary === true);
      return { json: d, text: `domain ${d.host}${d.isPrimary ? ' (primary)' : ''} added` };
    }
    case 'domain remove': {
      const d = await removeDomain(sql, need(values, 'org'), need(values, 'host'));
      return { json: d, text: `domain ${d.host} removed` };
    }
    case 'link create': {
      const by = need(values, 'by');
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(by)) throw new UsageError('--by must be an e-mail address');
      const { view } = await saveLink(
        { sql, defaultShortDomain: DEFAULT_SHORT_DOMAIN, now: Date.now },
        { org: await orgOf(), attribution: by, via: 'INTERNAL' },
        { url: need(values, 'url') },
      );
      return { json: view, text: `${view.smartLink} -> ${view.url}` };
    }
    case 'usage': {
      const r = await usageReport(sql, await orgOf(), Date.now());
      return {
        json: r,
        text: `links ${r.links.used}/${r.links.limit} (overage ${r.links.overage}, ${r.links.overageEur} EUR); clicks ${r.clicks.used}/${r.clicks.limit} (overage ${r.clicks.overage}, ${r.clicks.overageEur} EUR); total ${r.totalOverageEur} EUR`,
      };
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

const config = loadConfigOrExit(commonSchema);
const DEFAULT_SHORT_DOMAIN = config.DEFAULT_SHORT_DOMAIN;

let parsed: { values: Values; positionals: string[] };
try {
  parsed = parseArgs({ args: process.argv.slice(2), options: OPTIONS, allowPositionals: true, strict: true }) as { values: Values; positionals: string[] };
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
  process.exit(2);
}
const command = parsed.positionals.slice(0, parsed.positionals[0] === 'usage' ? 1 : 2).join(' ');
if (!command || parsed.positionals.length > (command === 'usage' ? 1 : 2)) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

let backends: Backends | null = null;
let exitCode = 0;
try {
  backends = await openBackends(config);
  const result = await run(backends, command, parsed.values);
  process.stdout.write(parsed.values.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
} catch (err) {
  exitCode = err instanceof UsageError ? 2 : 1;
  const message =
    err instanceof UsageError
      ? `${err.message}\n${USAGE}`
      : err instanceof AppError
        ? `${err.code}: ${err.message}`
        : err instanceof AppErrorList
          ? err.errors.map((e) => `${e.code}: ${e.message}`).join('\n')
          : `error: ${(err as Error).message}`;
  process.stderr.write(`${message}\n`);
} finally {
  await backends?.close();
}
process.exit(exitCode);
