// Invariant: TEST-ONLY. An HTTP proxy that stands for a ClickHouse cluster in front of a single node
// (the chDB stand-in, fake-clickhouse-http.ts): it records every statement as the service sent it
// (SQL, settings, parameters), checks that every CREATE and ALTER parses in ClickHouse's own
// parser (formatQuery on the node), and runs the single-node equivalent: ON CLUSTER dropped,
// Replicated engines made plain, a Distributed table answered without running (the local table
// stands for it: `<name>_local` means `<name>` here, in SQL and in parameter values), a
// clusterAllReplicas() of a system table read locally. Settings go through untouched, so the engine
// checks their names. What it cannot show is how a real cluster behaves (replication, quorum,
// distributed DDL): docs/scale-out.md says what needs one.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NOT_SETTINGS } from './fake-clickhouse-http.ts';

/** One statement as the service sent it. */
export interface RecordedStatement {
  sql: string;
  /** ClickHouse settings given as URL parameters (the client's own parameters left out). */
  settings: Record<string, string>;
  /** Query parameters (`param_<name>`), as sent. */
  params: Record<string, string>;
}

export interface ClusterProxy {
  readonly url: string;
  /** Every statement received since the start or the last clear(), in order. */
  readonly statements: RecordedStatement[];
  clear(): void;
  close(): Promise<void>;
}

const unlocal = (text: string): string => text.replace(/\b(\w+)_local\b/g, '$1');

/**
 * The single-node statement standing for `sql` on the cluster `cluster`; null for a Distributed
 * table's CREATE (the local table is that table here). Throws on ON CLUSTER of another cluster.
 */
export function singleNodeStatement(sql: string, cluster: string): string | null {
  for (const m of sql.matchAll(/\bON CLUSTER (\w+)/g)) if (m[1] !== cluster) throw new Error(`ON CLUSTER ${m[1]}, expected ${cluster}`);
  const distributed = /^\s*CREATE TABLE IF NOT EXISTS (\w+) ON CLUSTER \w+ AS (\w+)_local\s+ENGINE = Distributed\(/.exec(sql);
  if (distributed) {
    if (distributed[1] !== distributed[2]) throw new Error(`Distributed table ${distributed[1]} over ${distributed[2]}_local`);
    return null;
  }
  return unlocal(
    sql
      .replaceAll(` ON CLUSTER ${cluster}`, '')
      .replace(/\bReplicated(\w*MergeTree)\('[^']*', '[^']*'(?:, )?/g, '$1(')
      .replace(/\breplicated_deduplication_window\b/g, 'non_replicated_deduplication_window')
      .replace(new RegExp(`\\bclusterAllReplicas\\(${cluster}, (system\\.\\w+)\\)`, 'g'), '$1'),
  );
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startClusterProxy(targetUrl: string, cluster: string): Promise<ClusterProxy> {
  const target = new URL(targetUrl);
  const statements: RecordedStatement[] = [];

  const forward = (path: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((resolve, reject) => {
      // Only what the HTTP interface reads: the body is sent whole, uncompressed, and answered uncompressed.
      const headers: Record<string, string> = { 'content-length': String(body.length) };
      for (const name of ['content-type', 'authorization']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
      const up = request({ host: target.hostname, port: target.port, path, method: 'POST', headers }, async (res) => {
        try {
          resolve({ status: res.statusCode ?? 500, headers: res.headers, body: await readBody(res) });
        } catch (err) {
          reject(err);
        }
      });
      up.on('error', reject);
      up.end(body);
    });

  /** ClickHouse's parser on the node: throws the engine's error when `sql` does not parse. */
  const checkParses = async (sql: string, req: IncomingMessage): Promise<void> => {
    const r = await forward(`/?param_q=${encodeURIComponent(sql)}`, req, Buffer.from('SELECT formatQuery({q:String}) FORMAT TSV'));
    if (r.status !== 200) throw new Error(`does not parse: ${r.body.toString('utf8')}`);
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://proxy');
      const body = await readBody(req);
      if (url.pathname !== '/') {
        const r = await forward(url.pathname + url.search, req, body);
        res.writeHead(r.status, r.headers).end(r.body);
        return;
      }
      const inUrl = url.searchParams.get('query');
      const sql = inUrl ?? body.toString('utf8');
      const settings: Record<string, string> = {};
      const params: Record<string, string> = {};
      for (const [k, v] of url.searchParams) {
        if (k.startsWith('param_')) params[k.slice(6)] = v;
        else if (!NOT_SETTINGS.has(k)) settings[k] = v;
      }
      statements.push({ sql, settings, params });
      if (/^\s*(CREATE|ALTER)\b/i.test(sql)) await checkParses(sql, req);
      const single = singleNodeStatement(sql, cluster);
      if (single === null) {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end();
        return;
      }
      for (const [k, v] of url.searchParams) if (k.startsWith('param_')) url.searchParams.set(k, unlocal(v));
      if (inUrl !== null) url.searchParams.set('query', single);
      const r = await forward(url.pathname + url.search, req, inUrl !== null ? body : Buffer.from(single));
      res.writeHead(r.status, r.headers).end(r.body);
    })().catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else
        res
          .writeHead(500, { 'X-ClickHouse-Exception-Code': '62' })
          .end(`Code: 62. DB::Exception: cluster proxy: ${err instanceof Error ? err.message : String(err)} (SYNTAX_ERROR)\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    statements,
    clear: () => void statements.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
