// Invariant: `npm run bench -- load` arguments are read by one pure function into complete
// options (defaults filled in) or into one line saying what is wrong with them; nothing is read
// from the environment or the disk here. OPTIONS is the only list of options: the help prints it
// and the parser accepts exactly its names, as `--name value` or `--name=value`.

export interface LoadOptions {
  /** The redirector's base URL (scheme, host, port, optional path prefix). */
  target: URL;
  rate: number;
  durationMs: number;
  connections: number;
  source: { kind: 'codes'; file: string } | { kind: 'links'; count: number };
  /** The API (base URL without /link/external/v1, and key); null without --api-key. */
  api: { url: string; key: string } | null;
  /** null: bench/results/load-<timestamp>/ */
  reportDir: string | null;
  /** Largest share of failed requests that passes, as a fraction (0.001 = 0.1%). */
  maxErrors: number;
  forwardedFor: boolean;
  timeoutMs: number;
}

export type ParsedArgs = { kind: 'help' } | { kind: 'run'; options: LoadOptions } | { kind: 'error'; message: string };

interface OptionSpec {
  name: string;
  value: string | null;
  help: string;
}

export const DEFAULTS = { rate: 1000, durationMs: 30_000, connections: 64, maxErrors: 0.001, timeoutMs: 10_000 } as const;
const MAX_LINKS = 100_000;

export const OPTIONS: readonly OptionSpec[] = [
  { name: '--target', value: 'URL', help: "the redirector's base URL, e.g. https://sho.rt or http://10.0.0.5:8080 (required)" },
  { name: '--rate', value: 'N/s', help: `requests a second, sent on schedule whatever the answers' latency (default ${DEFAULTS.rate}/s)` },
  { name: '--duration', value: 'TIME', help: 'how long to send: 500ms, 30s, 5m, 1h (default 30s)' },
  {
    name: '--connections',
    value: 'N',
    help: `keep-alive connections; each carries one request at a time, so they must outnumber rate × latency (default ${DEFAULTS.connections})`,
  },
  {
    name: '--codes',
    value: 'FILE',
    help: 'visit these links: one short code (sent with the target\'s host) or full short URL (its own host as Host) a line; "#" starts a comment',
  },
  {
    name: '--links',
    value: 'N',
    help: `create N links through the API first (--api-url, --api-key) and visit them (at most ${MAX_LINKS.toLocaleString('en-US')})`,
  },
  { name: '--api-url', value: 'URL', help: "the API's base URL, e.g. https://api.example.com (with or without /link/external/v1)" },
  {
    name: '--api-key',
    value: 'KEY',
    help: "an API key (X-API-KEY) of the links' organisation: creates --links, and after the run counts the run's clicks through the analytics API (served against stored)",
  },
  { name: '--report', value: 'DIR', help: 'where report.json and report.html go (default bench/results/load-<timestamp>/)' },
  { name: '--max-errors', value: 'P%', help: 'largest share of failed requests (transport errors, HTTP 4xx/5xx, not sent) that passes (default 0.1%)' },
  {
    name: '--forwarded-for',
    value: null,
    help: 'send an X-Forwarded-For address out of 10,000 public ones (the redirector must trust the proxy hop: TRUST_PROXY)',
  },
  { name: '--timeout', value: 'TIME', help: 'a request unanswered this long after it was sent fails as a timeout (default 10s)' },
  { name: '--help, -h', value: null, help: 'print this help and exit' },
];

export function loadHelp(): string {
  const left = OPTIONS.map((o) => (o.value === null ? o.name : `${o.name} ${o.value}`));
  const width = Math.max(...left.map((l) => l.length));
  return [
    'usage: npm run bench -- load --target URL (--codes FILE | --links N --api-url URL --api-key KEY) [options]',
    '',
    'Drives a deployment of the redirector at a fixed rate (open loop: latency counts from when each',
    'request was due, so a stall shows in the percentiles), prints a table, and writes report.json and',
    'report.html. Exit 0: the rate was reached (95%), errors stayed under --max-errors and, with',
    '--api-key, the analytics stored every click served; 1: one of those failed; 2: bad arguments.',
    '',
    'options:',
    ...OPTIONS.map((o, i) => `  ${left[i]!.padEnd(width)}  ${o.help}`),
    '',
    'bench/README.md, "Load-testing your deployment", explains the method and the report.',
  ].join('\n');
}

/** 30s, 500ms, 5m, 1h, 1.5s; a bare number is seconds. null when it is not a positive duration. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (m === null) return null;
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = Math.round(Number(m[1]) * factor);
  return ms > 0 ? ms : null;
}

/** 2000, 2000/s, 2k, 2k/s, 1.5k; null when not a positive rate. */
export function parseRate(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(k)?(?:\/s)?$/i.exec(text.trim());
  if (m === null) return null;
  const rate = Number(m[1]) * (m[2] ? 1000 : 1);
  return rate > 0 && rate <= 10_000_000 ? rate : null;
}

/** 0.1%, 0.1 (percent either way), 0; null when not a percentage from 0 to 100. */
export function parsePercent(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(text.trim());
  if (m === null) return null;
  const pct = Number(m[1]);
  return pct <= 100 ? pct / 100 : null;
}

function parseCount(text: string, max: number): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const n = Number(text);
  return n >= 1 && n <= max ? n : null;
}

function parseHttpUrl(text: string): URL | null {
  try {
    const u = new URL(text);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '' || u.search !== '' || u.hash !== '') return null;
    return u;
  } catch {
    return null;
  }
}

/** The API's base URL without a trailing slash or the /link/external/v1 prefix. */
export function apiBase(u: URL): string {
  return `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/\/link\/external\/v1$/, '')}`;
}

export function parseLoadArgs(argv: readonly string[]): ParsedArgs {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const known = new Map(OPTIONS.flatMap((o) => o.name.split(', ').map((n) => [n, o] as const)));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const spec = known.get(name);
    if (spec === undefined) return error(arg.startsWith('-') ? `unknown option '${name}'` : `unexpected argument '${arg}'`);
    if (spec.value === null) {
      if (eq > 0 && arg.startsWith('--')) return error(`${name} takes no value`);
      flags.add(name);
      continue;
    }
    const value = eq > 0 && arg.startsWith('--') ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '') return error(`${name} needs a value (${spec.value})`);
    if (values.has(name)) return error(`${name} given twice`);
    values.set(name, value);
  }

  const targetText = values.get('--target');
  if (targetText === undefined) return error('--target URL is required (the redirector, e.g. https://sho.rt)');
  const target = parseHttpUrl(targetText);
  if (target === null) return error(`--target must be an http:// or https:// URL without query, got '${targetText}'`);

  const rate = values.has('--rate') ? parseRate(values.get('--rate')!) : DEFAULTS.rate;
  if (rate === null) return error(`--rate must be a positive number of requests a second (2000 or 2000/s), got '${values.get('--rate')}'`);
  const durationMs = values.has('--duration') ? parseDuration(values.get('--duration')!) : DEFAULTS.durationMs;
  if (durationMs === null) return error(`--duration must be a positive time (30s, 500ms, 5m, 1h), got '${values.get('--duration')}'`);
  const timeoutMs = values.has('--timeout') ? parseDuration(values.get('--timeout')!) : DEFAULTS.timeoutMs;
  if (timeoutMs === null) return error(`--timeout must be a positive time (10s, 500ms), got '${values.get('--timeout')}'`);
  const connections = values.has('--connections') ? parseCount(values.get('--connections')!, 10_000) : DEFAULTS.connections;
  if (connections === null) return error(`--connections must be a whole number from 1 to 10000, got '${values.get('--connections')}'`);
  const maxErrors = values.has('--max-errors') ? parsePercent(values.get('--max-errors')!) : DEFAULTS.maxErrors;
  if (maxErrors === null) return error(`--max-errors must be a percentage from 0 to 100 (0.1%), got '${values.get('--max-errors')}'`);
  if (Math.round((durationMs * rate) / 1000) < 1) return error('--rate × --duration must make at least one request');

  const codes = values.get('--codes');
  const linksText = values.get('--links');
  if (codes !== undefined && linksText !== undefined) return error('give --codes FILE or --links N, not both');
  if (codes === undefined && linksText === undefined) return error('give --codes FILE (links to visit) or --links N (links to create through the API)');
  let source: LoadOptions['source'];
  if (linksText !== undefined) {
    const count = parseCount(linksText, MAX_LINKS);
    if (count === null) return error(`--links must be a whole number from 1 to ${MAX_LINKS}, got '${linksText}'`);
    source = { kind: 'links', count };
  } else source = { kind: 'codes', file: codes! };

  const apiUrlText = values.get('--api-url');
  const key = values.get('--api-key');
  if (source.kind === 'links' && (apiUrlText === undefined || key === undefined))
    return error('--links needs --api-url and --api-key (the links are created through the API)');
  if (key !== undefined && apiUrlText === undefined) return error('--api-key needs --api-url');
  if (apiUrlText !== undefined && key === undefined) return error('--api-url needs --api-key');
  let api: LoadOptions['api'] = null;
  if (apiUrlText !== undefined && key !== undefined) {
    const u = parseHttpUrl(apiUrlText);
    if (u === null) return error(`--api-url must be an http:// or https:// URL without query, got '${apiUrlText}'`);
    api = { url: apiBase(u), key };
  }
  return {
    kind: 'run',
    options: {
      target,
      rate,
      durationMs,
      connections,
      source,
      api,
      reportDir: values.get('--report') ?? null,
      maxErrors,
      forwardedFor: flags.has('--forwarded-for'),
      timeoutMs,
    },
  };
}

function error(message: string): ParsedArgs {
  return { kind: 'error', message: `load: ${message} (npm run bench -- load --help lists the options)` };
}
