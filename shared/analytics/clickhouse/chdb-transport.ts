// Invariant: one ChdbTransport owns the chDB data directory of this process (chDB binds one data
// path per process, and a second process on the same path is refused by ClickHouse's lock). It
// keeps one Session for statements, queries and inserts, and lends a separate Session on the
// same path to each concurrent stream, because a Session carries at most one active stream. A
// stream fetches its next chunk while the caller handles the current one (two chunks held).
import { Session, type StreamChunk } from 'chdb';
import type { ClickHouseTransport, QueryParams } from './clickhouse-transport.ts';

/** Idle stream sessions kept for reuse; more concurrent streams open (and later close) extras. */
const MAX_IDLE_STREAM_SESSIONS = 2;
/** Insert rows JSON-encoded per event-loop turn (≈ 2 ms). */
const ENCODE_ROWS_PER_TURN = 1000;

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

  async insertRows(table: string, columns: readonly string[], rows: readonly (readonly unknown[])[], settings: Readonly<Record<string, string>>): Promise<void> {
    this.assertOpen();
    if (rows.length === 0) return;
    let text = '';
    for (let i = 0; i < rows.length; i++) {
      // A large batch is encoded over several event-loop turns (the redirector shares the loop).
      if (i > 0 && i % ENCODE_ROWS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      text += `${JSON.stringify(rows[i])}\n`;
    }
    await this.session.insert({ table, values: Buffer.from(text), format: 'JSONCompactEachRow', columns, settings: { ...settings } });
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
    for await (const chunk of this.streamChunks(sql, params, 'JSONEachRow')) {
      if (chunk.numRows > 0) yield chunk.rows<T>();
    }
  }

  async *streamText(sql: string, params: QueryParams, format: string): AsyncIterable<string> {
    // A chunk holds whole rows, so a multi-byte character is never cut.
    for await (const chunk of this.streamChunks(sql, params, format)) {
      if (chunk.numBytes > 0) yield chunk.text();
    }
  }

  /**
   * The stream's chunks, fetching the next one (on a libuv thread) while the caller works on the
   * current one, so engine time and JS time overlap; at most two chunks are held.
   */
  private async *streamChunks(sql: string, params: QueryParams, format: string): AsyncGenerator<StreamChunk> {
    this.assertOpen();
    const session = this.idleStreamSessions.pop() ?? new Session(this.path);
    this.busyStreamSessions.add(session);
    let reusable = false;
    try {
      const stream = session.queryStreamBind(sql, params, { format });
      const chunks = stream[Symbol.asyncIterator]();
      let next: Promise<IteratorResult<StreamChunk>> | null = null;
      try {
        next = chunks.next();
        for (;;) {
          const r: IteratorResult<StreamChunk> = await next;
          next = null;
          if (r.done) break;
          next = chunks.next();
          yield r.value;
        }
        reusable = true;
      } finally {
        if (!stream.closed) stream.cancel();
        // A prefetch still running when the caller left: its outcome no longer matters.
        next?.catch(() => {});
        void chunks.return?.(undefined).catch(() => {});
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
