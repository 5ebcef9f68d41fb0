// Invariant: configuration is read from the environment once, by one zod schema per process,
// before anything starts. A wrong value stops the process with every problem listed, never the
// first one only. Nothing else in the code base reads process.env, but for uWebSockets.js's own
// variables in its loader (redirector/uws-native.ts).
import { z } from 'zod';
import { MAX_RETENTION_DAYS, parseRetentionDays } from '../analytics/model/retention.ts';
import { parseTrustProxy, type TrustProxy } from '../net/trusted-proxies.ts';

const port = z.coerce.number().int().min(0).max(65535);
const optionalUrl = (protocols: readonly string[]) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional()
    .refine((v) => v === undefined || protocols.some((p) => v.startsWith(p)), {
      message: `must start with ${protocols.join(' or ')}`,
    });
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no', '']).transform((v) => v === 'true' || v === '1' || v === 'yes');

/** One seed node of a Redis Cluster. */
export interface RedisNode {
  host: string;
  port: number;
}

/** `host:port[,host:port…]` (a host name, an IPv4 address or a bracketed IPv6 one); a message when malformed. */
export function parseRedisNodes(text: string): RedisNode[] | string {
  const nodes: RedisNode[] = [];
  for (const entry of text.split(',').map((s) => s.trim())) {
    const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/i.exec(entry);
    const port = Number(m?.[2]);
    if (!m || port < 1 || port > 65535) return `must be a comma-separated list of host:port (not "${entry}")`;
    nodes.push({ host: (m[1] as string).replace(/^\[|\]$/g, ''), port });
  }
  return nodes;
}

/** The in-process link cache's default byte budget (64 MiB). */
export const DEFAULT_LINK_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** `value` as an origin (`scheme://host[:port]`) when it is an http(s) URL with nothing after the authority; else null. */
function httpOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || url.pathname !== '/') return null;
  // `https://sho.rt?` and `https://sho.rt#` parse with empty search/hash: refuse them as text.
  if (/[?#]/.test(value)) return null;
  return url.origin;
}

/**
 * Default METRICS_PORT of each role, so that the three production processes run on one host with
 * no metrics settings (as Prometheus exporters each have a port of their own); `npm start`
 * serves the whole process on the API's.
 */
export const METRICS_PORTS = { api: 9464, redirector: 9465, ingest: 9466 } as const;

/** A retention in whole days (1 to 100 years); unset or empty: kept for good. */
const retentionDays = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const days = parseRetentionDays(v ?? '');
    if (days === undefined) {
      ctx.addIssue({ code: 'custom', message: `must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or empty to keep data for good` });
      return z.NEVER;
    }
    return days;
  });

/** Fields every process shares. */
export const commonSchema = z.object({
  DATA_DIR: z.string().min(1).default('./data'),
  /** Host of the default short links, served over https (SHORT_LINK_BASE_URL takes precedence). */
  DEFAULT_SHORT_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+(:\d+)?$/i, 'must be a host name, optionally with :port')
    .optional(),
  /** Public origin of the default short links, scheme included (e.g. https://sho.rt); see shortLinkBase. */
  SHORT_LINK_BASE_URL: z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const origin = httpOrigin(v);
      if (origin === null) {
        ctx.addIssue({ code: 'custom', message: 'must be an http:// or https:// origin without path, query or fragment (e.g. https://sho.rt)' });
        return z.NEVER;
      }
      return origin;
    }),
  /** The redirector's port; the other processes read it for the default of SHORT_LINK_BASE_URL. */
  REDIRECT_PORT: port.default(8080),
  DATABASE_URL: optionalUrl(['postgres://', 'postgresql://']),
  /**
   * `transaction`: DATABASE_URL is a transaction pooler (PgBouncer pool_mode=transaction, RDS
   * Proxy, Supabase's pooler): no prepared statements and no session state go through it.
   */
  DATABASE_POOLER: z.enum(['none', 'transaction']).default('none'),
  /** The primary directly, past the pooler: migrations and LISTEN (optional). */
  DATABASE_DIRECT_URL: optionalUrl(['postgres://', 'postgresql://']),
  REDIS_URL: optionalUrl(['redis://', 'rediss://']),
  /** Seed nodes of a Redis Cluster (`host:port,host:port`), instead of REDIS_URL. */
  REDIS_CLUSTER_NODES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return undefined;
      const nodes = parseRedisNodes(v);
      if (typeof nodes === 'string') {
        ctx.addIssue({ code: 'custom', message: nodes });
        return z.NEVER;
      }
      return nodes;
    }),
  CLICKHOUSE_URL: optionalUrl(['http://', 'https://']),
  /**
   * A ClickHouse cluster's name (the servers' remote_servers): the service creates its tables ON
   * CLUSTER (Replicated local tables behind Distributed ones) and inserts synchronously into the shards.
   */
  CLICKHOUSE_CLUSTER: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || /^[A-Za-z_][A-Za-z0-9_]*$/.test(v), { message: 'must be a cluster name: letters, digits and _' }),
  /** Replicas of a shard that must hold an insert before it is acknowledged (insert_quorum); with CLICKHOUSE_CLUSTER. */
  CLICKHOUSE_INSERT_QUORUM: z.coerce.number().int().min(1).max(16).default(1),
  /** Trusted proxies in front of the redirector and the API: a hop count (true = 1) or CIDRs; see README. */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v, ctx): TrustProxy => {
      const parsed = parseTrustProxy(v);
      if (!('error' in parsed)) return parsed;
      ctx.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Prefix of every Redis key and channel, so that several deployments (or test runs) share a server. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[^{}]*$/, 'must not contain { or } (they mark the hash tags that keep related keys on one Redis Cluster slot)')
    .default('shortlink:'),
  /** Days raw analytics events are kept, counted from their click time; unset keeps them for good. An organisation may set its own. */
  ANALYTICS_RETENTION_DAYS: retentionDays,
  /** Days the rollup behind aggregates keeps its counts; unset keeps them for good. */
  ANALYTICS_ROLLUP_RETENTION_DAYS: retentionDays,
  /** Sync reads only events ingested at least this long ago (ms), so late inserts are never skipped. */
  ANALYTICS_SYNC_SETTLE_MS: z.coerce.number().int().min(0).max(600_000).default(2000),
  /** How long a stopping process may take to answer what it received and close its connections (ms). */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** Lets the preview fetcher (API after a save) reach loopback/private addresses. Tests only. */
  PREVIEW_ALLOW_PRIVATE: bool.default(false),
  /** Lets webhook endpoints use http and loopback/private addresses. Tests only. */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** Seals webhook secrets at rest (AES-256-GCM): base64 of 32 bytes; unset, secrets are stored as is (docs/webhooks.md). */
  WEBHOOK_SECRETS_KEY: z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const key = Buffer.from(v, 'base64');
      if (key.length !== 32) {
        ctx.addIssue({ code: 'custom', message: 'must be the base64 of 32 random bytes (openssl rand -base64 32)' });
        return z.NEVER;
      }
      return key;
    }),
  /** This process's Prometheus endpoint (GET /metrics); each role has its own default (api 9464, redirector 9465, ingest 9466); 0 picks a free one. */
  METRICS_PORT: port.default(METRICS_PORTS.api),
  /** Interface of the metrics listener: loopback unless a scraper on another host needs it. */
  METRICS_HOST: z.string().default('127.0.0.1'),
  /** The dashboard's port; the admin CLI reads it (with DASHBOARD_PUBLIC_URL) for the invite links it prints. */
  DASHBOARD_PORT: port.default(3001),
  /** The dashboard's public origin (its own origin, never a short-link host); default http://localhost:<DASHBOARD_PORT>. */
  DASHBOARD_PUBLIC_URL: z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const origin = httpOrigin(v);
      if (origin === null) {
        ctx.addIssue({ code: 'custom', message: 'must be an http:// or https:// origin without path, query or fragment (e.g. https://dash.sho.rt)' });
        return z.NEVER;
      }
      return origin;
    }),
});

export const apiSchema = commonSchema.extend({
  API_PORT: port.default(3000),
  API_HOST: z.string().default('0.0.0.0'),
  /** Public address of the API, as clients reach it; the OpenAPI document's `servers` entry. Default http://localhost:<API_PORT>. */
  API_PUBLIC_URL: optionalUrl(['http://', 'https://']).transform((v) => v?.replace(/\/+$/, '')),
  /** Destination previews the API process fetches at once; the rest wait, queued fairly per organisation. */
  PREVIEW_FETCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Preview fetches one destination host may receive a minute (bursts of up to 4). */
  PREVIEW_FETCHES_PER_HOST_PER_MIN: z.coerce.number().int().min(1).max(60_000).default(30),
});

export const redirectorSchema = commonSchema.extend({
  METRICS_PORT: port.default(METRICS_PORTS.redirector),
  REDIRECT_HOST: z.string().default('0.0.0.0'),
  REDIRECT_WORKERS: z.coerce.number().int().min(1).max(256).optional(),
  /** Entries of the in-process link cache; 0 disables the LRU tier (bench: warm path). */
  LINK_CACHE_ENTRIES: z.coerce.number().int().min(0).default(100_000),
  /** QR images one client address may have drawn per minute (cached images are free). */
  QR_RENDERS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(60),
  /** Bytes of drawn QR images each redirector process keeps. */
  QR_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(32 * 1024 * 1024),
  /** Byte budget of the in-process link cache (the LRU holds at most this many bytes of links). */
  LINK_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .max(16 * 1024 * 1024 * 1024)
    .default(DEFAULT_LINK_CACHE_MAX_BYTES),
});

export const ingestSchema = commonSchema.extend({
  METRICS_PORT: port.default(METRICS_PORTS.ingest),
  /** The analytics worker's health listener (GET /healthz), for container healthchecks; 0 picks a free port. */
  INGEST_HEALTH_PORT: port.default(8081),
  INGEST_HEALTH_HOST: z.string().default('0.0.0.0'),
});

/** `ip`, `ip:port`, `[ipv6]:port` or a bare IPv6 address. */
const DNS_SERVER = /^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-f:.]+\](:\d{1,5})?|[0-9a-f]*:[0-9a-f:.]*)$/i;

export const dashboardSchema = commonSchema.extend({
  DASHBOARD_HOST: z.string().default('0.0.0.0'),
  /** `invite` (default): accounts come from invitations only; `open`: anyone may sign up with a new FREE organisation. */
  DASHBOARD_SIGNUP: z.enum(['invite', 'open']).default('invite'),
  /** The resolvers of custom-domain verification, comma-separated `ip[:port]`; default the system's. */
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const list = (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      const bad = list.filter((s) => !DNS_SERVER.test(s));
      if (bad.length > 0) {
        ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of ip[:port] (not ${bad.join(', ')})` });
        return z.NEVER;
      }
      return list;
    }),
  /** The on-demand-TLS `ask` listener (GET /ask?domain=…: 200 only for an ACTIVE custom domain); internal; 0 picks a free port. */
  TLS_ASK_PORT: port.default(3002),
  TLS_ASK_HOST: z.string().default('127.0.0.1'),
});

export const startSchema = apiSchema
  .merge(redirectorSchema)
  .merge(dashboardSchema)
  .extend({ METRICS_PORT: port.default(METRICS_PORTS.api) });

export type CommonConfig = z.infer<typeof commonSchema>;
export type ApiConfig = z.infer<typeof apiSchema>;
export type RedirectorConfig = z.infer<typeof redirectorSchema>;
export type IngestConfig = z.infer<typeof ingestSchema>;
export type StartConfig = z.infer<typeof startSchema>;
export type DashboardConfig = z.infer<typeof dashboardSchema>;

/** The dashboard's origin: DASHBOARD_PUBLIC_URL, else http://localhost:<DASHBOARD_PORT>. */
export function dashboardPublicUrl(config: Pick<CommonConfig, 'DASHBOARD_PORT' | 'DASHBOARD_PUBLIC_URL'>): string {
  return config.DASHBOARD_PUBLIC_URL ?? `http://localhost:${config.DASHBOARD_PORT}`;
}

/**
 * The origin every default smartLink and QR code starts with: SHORT_LINK_BASE_URL, else
 * https://<DEFAULT_SHORT_DOMAIN>, else http://localhost:<REDIRECT_PORT> (the embedded
 * redirector, so a printed link opens as printed). Custom domains are https://<domain>.
 */
export function shortLinkBase(
  config: Pick<CommonConfig, 'REDIRECT_PORT'> & Partial<Pick<CommonConfig, 'SHORT_LINK_BASE_URL' | 'DEFAULT_SHORT_DOMAIN'>>,
): string {
  if (config.SHORT_LINK_BASE_URL) return config.SHORT_LINK_BASE_URL;
  if (config.DEFAULT_SHORT_DOMAIN) return `https://${config.DEFAULT_SHORT_DOMAIN.toLowerCase()}`;
  return `http://localhost:${config.REDIRECT_PORT}`;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment with `schema`; throws a ConfigError naming every bad variable. */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  // Unset and empty mean "default" for every variable.
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
}

/** Parses or exits the process with status 2 after printing every problem. */
export function loadConfigOrExit<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  try {
    return parseConfig(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
