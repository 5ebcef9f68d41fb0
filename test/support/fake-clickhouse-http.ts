// Invariant: TEST-ONLY. A local HTTP server that answers the part of ClickHouse's HTTP interface
// @clickhouse/client uses (query in the body or in `query`, `param_<name>` values in ClickHouse's
// escaped text form, settings as URL parameters, INSERT … FORMAT with the data in the body (Native
// blocks included),
// trailing `FORMAT`, /ping, X-ClickHouse-* headers, `Code: N. DB::Exception: … (NAME)` errors)
// by running the real chDB engine on a data directory. SELECT results stream chunk by chunk with
// backpressure. stop()/start() close and reopen the port to stage a real outage (connection
// refused). Product code never imports this file.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Session, type RawInsertFormat } from 'chdb';
import { settingsClause } from '../../shared/analytics/clickhouse/chdb-transport.ts';

export interface FakeClickHouse {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** Requests answered so far. */
  readonly requests: number;
  /** Stops listening and drops open connections (the engine keeps its data). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Stops and closes the engine. */
  close(): Promise<void>;
}

/** URL parameters of the HTTP interface that are not ClickHouse settings. */
export const NOT_SETTINGS: ReadonlySet<string> = new Set([
  'query',
  'query_id',
  'database',
  'session_id',
  'role',
  'default_format',
  'user',
  'password',
  'enable_http_compression',
  'wait_end_of_query',
]);
const INSERT_FORMATS: readonly RawInsertFormat[] = [
  'JSONEachRow',
  'JSONCompactEachRow',
  'CSV',
  'CSVWithNames',
  'TSV',
  'TabSeparated',
  'TSVWithNames',
  'TabSeparatedWithNames',
];
const VERSION = '26.7.2.1 (fake-clickhouse-http over chDB)';

/** Reverses ClickHouse's escaped text form of a parameter value (\\ \' \t \n \r \0 \b \f). */
export function unescapeParam(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\\' || i + 1 >= text.length) {
      out += c;
      continue;
    }
    const n = text[++i] ?? '';
    out += ({ t: '\t', n: '\n', r: '\r', '0': '\0', b: '\b', f: '\f' } as Record<string, string>)[n] ?? n;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function quoteSetting(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

interface ChdbLikeError {
  clickhouseCode?: number;
  message: string;
}

function sendError(res: ServerResponse, err: unknown): void {
  const e = err as ChdbLikeError;
  const code = typeof e.clickhouseCode === 'number' ? e.clickhouseCode : 1001;
  let text = e.message ?? String(err);
  if (!/Code: \d+\. DB::Exception:/.test(text)) text = `Code: ${code}. DB::Exception: ${text} (STD_EXCEPTION)`;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(500, {
    'Content-Type': 'text/plain; charset=UTF-8',
    'X-ClickHouse-Exception-Code': String(code),
    'X-ClickHouse-Server-Display-Name': 'fake-clickhouse',
  });
  res.end(`${text} (version ${VERSION})\n`);
}

export async function startFakeClickHouse(dataPath: string, port = 0): Promise<FakeClickHouse> {
  const main = new Session(dataPath);
  const idle: Session[] = [];
  const sockets = new Set<Socket>();
  let requests = 0;
  let staged = 0;
  let server: Server | null = null;
  let boundPort = port;

  const summary = (written: number): string =>
    JSON.stringify({
      read_rows: '0',
      read_bytes: '0',
      written_rows: String(written),
      written_bytes: '0',
      total_rows_to_read: '0',
      result_rows: '0',
      result_bytes: '0',
      elapsed_ns: '0',
    });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    requests++;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const queryId = url.searchParams.get('query_id') ?? randomUUID();
    const baseHeaders = {
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Server-Display-Name': 'fake-clickhouse',
      'X-ClickHouse-Timezone': 'UTC',
    };
    if (url.pathname === '/ping') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    if (url.pathname !== '/') {
      res.writeHead(404).end();
      return;
    }
    if (String(req.headers['content-type'] ?? '').startsWith('multipart/')) throw new Error('multipart parameters are not supported by the fake server');
    const body = await readBody(req);
    const params: Record<string, string> = {};
    const settings: Record<string, string> = {};
    for (const [k, v] of url.searchParams) {
      if (k.startsWith('param_')) params[k.slice(6)] = unescapeParam(v);
      else if (!NOT_SETTINGS.has(k)) settings[k] = v;
    }
    const urlQuery = url.searchParams.get('query');
    const sql = (urlQuery ?? body.toString('utf8')).trim();
    const data = urlQuery !== null ? body : null;

    const insert = /^INSERT\s+INTO\s+(\S+?)\s*(?:\((.*)\))?\s*FORMAT\s+(\w+)\s*$/is.exec(sql);
    if (insert && data !== null && insert[3] === 'Native') {
      // chDB's insert API takes text formats only: the block goes through a staged file, as in ChdbTransport.
      const file = join(dataPath, 'user_files', `fake-insert-${++staged}.native`);
      mkdirSync(dirname(file), { recursive: true });
      await writeFile(file, data);
      try {
        const target = `${insert[1] ?? ''}${insert[2] ? ` (${insert[2]})` : ''}`;
        await main.queryBindAsync(
          `INSERT INTO ${target}${settingsClause(settings)} SELECT * FROM file({stagedBlock:String}, 'Native')`,
          { stagedBlock: file },
          { format: 'Null' },
        );
      } finally {
        await rm(file, { force: true });
      }
      res.writeHead(200, { ...baseHeaders, 'X-ClickHouse-Summary': summary(0) }).end();
      return;
    }
    if (insert && data !== null) {
      const format = INSERT_FORMATS.find((f) => f === insert[3]);
      if (!format) throw new Error(`insert format ${insert[3] ?? ''} is not supported by the fake server`);
      const columns = insert[2]?.split(',').map((c) => c.trim().replace(/^`|`$/g, ''));
      const r = await main.insert({ table: insert[1] ?? '', values: data, format, ...(columns ? { columns } : {}), settings });
      res.writeHead(200, { ...baseHeaders, 'X-ClickHouse-Summary': summary(r.rowsWritten) }).end();
      return;
    }

    // A trailing FORMAT clause chooses the output format.
    const fmt = /\s+FORMAT\s+(\w+)\s*;?\s*$/i.exec(sql);
    const statement = fmt ? sql.slice(0, fmt.index) : sql;
    const format = fmt?.[1] ?? url.searchParams.get('default_format') ?? 'TabSeparated';
    const hasSettings = Object.keys(settings).length > 0;

    if (!/^\s*(SELECT|WITH|SHOW|DESCRIBE|EXISTS)\b/i.test(statement)) {
      const session = hasSettings ? new Session(dataPath) : main;
      try {
        for (const [k, v] of Object.entries(settings)) await session.queryAsync(`SET ${k} = ${quoteSetting(v)}`);
        const r = await session.queryBindAsync(statement, params, { format });
        res.writeHead(200, { ...baseHeaders, 'X-ClickHouse-Format': format, 'X-ClickHouse-Summary': summary(0) }).end(Buffer.from(r.bytes()));
      } finally {
        if (session !== main) session.close();
      }
      return;
    }

    // SELECT: stream on a session of its own (a session carries one stream at a time).
    const session = hasSettings ? new Session(dataPath) : (idle.pop() ?? new Session(dataPath));
    let reusable = !hasSettings;
    try {
      for (const [k, v] of Object.entries(settings)) await session.queryAsync(`SET ${k} = ${quoteSetting(v)}`);
      const stream = session.queryStreamBind(statement, params, { format });
      let gone = false;
      res.on('close', () => {
        if (!res.writableFinished) gone = true;
      });
      try {
        for await (const chunk of stream) {
          if (!res.headersSent) res.writeHead(200, { ...baseHeaders, 'X-ClickHouse-Format': format, 'Content-Type': 'text/plain; charset=UTF-8' });
          if (gone) break;
          if (!res.write(Buffer.from(chunk.raw()))) {
            await new Promise<void>((resolve) => {
              const done = (): void => {
                res.off('drain', done).off('close', done);
                resolve();
              };
              res.on('drain', done).on('close', done);
            });
          }
        }
      } finally {
        if (!stream.closed) {
          stream.cancel();
          reusable = false;
        }
      }
      if (!res.headersSent) res.writeHead(200, { ...baseHeaders, 'X-ClickHouse-Format': format });
      res.end();
    } catch (err) {
      reusable = false;
      throw err;
    } finally {
      if (reusable && idle.length < 4) idle.push(session);
      else session.close();
    }
  }

  async function start(): Promise<void> {
    // ClickHouse reads a URI up to http_max_uri_size (1 MiB by default); Node's 16 KiB header limit
    // refused a feed page's copies look-up (1,000 event ids as a query parameter, about 40 KB).
    const s = createServer({ maxHeaderSize: 1024 * 1024 }, (req, res) => {
      handle(req, res).catch((err: unknown) => sendError(res, err));
    });
    s.keepAliveTimeout = 5000;
    s.on('connection', (sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(boundPort, '127.0.0.1', () => resolve());
    });
    boundPort = (s.address() as AddressInfo).port;
    server = s;
  }

  async function stop(): Promise<void> {
    const s = server;
    server = null;
    if (!s) return;
    const closed = new Promise<void>((r) => s.close(() => r()));
    for (const sock of sockets) sock.destroy();
    await closed;
  }

  await start();
  return {
    get url() {
      return `http://127.0.0.1:${boundPort}`;
    },
    get port() {
      return boundPort;
    },
    get requests() {
      return requests;
    },
    stop,
    start,
    close: async () => {
      await stop();
      for (const s of idle.splice(0)) s.close();
      main.close();
    },
  };
}
