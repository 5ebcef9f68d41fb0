// Invariant: one ChdbTransport owns the chDB data directory of this process (chDB binds one data
// path per process, and a second process on the same path is refused by ClickHouse's lock). It
// keeps one Session for statements, queries and inserts, and lends a separate Session on the
// same path to each concurrent stream, because a Session carries at most one active stream.
import { Session } from 'chdb';
import type { ClickHouseTransport, QueryParams } from './clickhouse-transport.ts';

/** Idle stream sessions kept for reuse; more concurrent streams open (and later close) extras. */
const MAX_IDLE_STREAM_SESSIONS = 2;

export class ChdbTransport implements ClickHouseTransport {
  readonly description: string;
  private readonly session: Session;
  private readonly idleStreamSessions: Session[] = [];
  private readonly busyStreamSessions = new Set<Session>();
  private closed = false;

  /** Opens (creating when needed) the chDB database at `path`. */
  constructor(readonly path: string) {
    this.session = new Session(path);
    this.description = `chdb:${path}`;
  }

  async exec(sql: string, params: QueryParams = {}): Promise<void> {
    this.assertOpen();
    await this.session.queryBindAsync(sql, params, { format: 'Null' });
  }

  async insertRows(table: string, columns: readonly string[], rows: readonly object[], settings: Readonly<Record<string, string>>): Promise<void> {
    this.assertOpen();
    if (rows.length === 0) return;
    const payload = Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await this.session.insert({ table, values: payload, format: 'JSONEachRow', columns, settings: { ...settings } });
  }

  async queryRows<T>(sql: string, params: QueryParams): Promise<T[]> {
    this.assertOpen();
    const result = await this.session.queryBindAsync(sql, params, { format: 'JSONEachRow' });
    const text = result.text();
    if (text === '') return [];
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as T);
  }

  async *streamRows<T>(sql: string, params: QueryParams): AsyncIterable<T[]> {
    this.assertOpen();
    const session = this.idleStreamSessions.pop() ?? new Session(this.path);
    this.busyStreamSessions.add(session);
    let reusable = false;
    try {
      const stream = session.queryStreamBind(sql, params, { format: 'JSONEachRow' });
      try {
        for await (const chunk of stream) {
          if (chunk.numRows > 0) yield chunk.rows<T>();
        }
        reusable = true;
      } finally {
        if (!stream.closed) stream.cancel();
      }
    } finally {
      // A session whose stream failed or was abandoned is closed rather than lent again.
      this.busyStreamSessions.delete(session);
      if (reusable && !this.closed && this.idleStreamSessions.length < MAX_IDLE_STREAM_SESSIONS) this.idleStreamSessions.push(session);
      else session.close();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.idleStreamSessions.splice(0)) s.close();
    for (const s of this.busyStreamSessions) s.close();
    this.busyStreamSessions.clear();
    this.session.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`${this.description} is closed`);
  }
}
