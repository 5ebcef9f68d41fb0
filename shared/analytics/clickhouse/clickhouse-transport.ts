// Invariant: the analytics store talks to ClickHouse only through this port, so the same SQL
// (clickhouse-sql.ts) runs unchanged on the embedded chDB engine and on a ClickHouse server.
// Rows travel in as one Native block per insert (the engine's own columnar format), out as JSON
// objects or as the bytes the engine prints (exports); parameters are bound by the engine, never
// spliced into text.

export type QueryParamValue = string | number | bigint;
export type QueryParams = Readonly<Record<string, QueryParamValue>>;

export interface ClickHouseTransport {
  /** A short name for logs and test titles, e.g. `chdb:/data/analytics`. */
  readonly description: string;
  /** Runs a statement that returns no rows (DDL). */
  exec(sql: string, params?: QueryParams): Promise<void>;
  /**
   * Inserts `block` (one block in ClickHouse's Native format holding exactly `columns`, in that
   * order) as ONE insert, with `settings` (e.g. the batch's insert_deduplication_token). Resolves
   * only once the rows are committed.
   */
  insertNative(table: string, columns: readonly string[], block: Uint8Array, settings: Readonly<Record<string, string>>): Promise<void>;
  /** Runs a query and returns every row. For small results only (pages, counts). */
  queryRows<T>(sql: string, params: QueryParams): Promise<T[]>;
  /**
   * Streams a query's rows in batches, holding one batch at a time. Leaving the loop early
   * (break, throw) cancels the query and frees its resources.
   */
  streamRows<T>(sql: string, params: QueryParams): AsyncIterable<T[]>;
  /**
   * Streams a query's output, printed by the engine in `format` (e.g. RawBLOB), as the bytes it
   * printed (UTF-8), in chunks cut anywhere, holding one chunk at a time: never decoded into
   * JavaScript strings. Leaving early cancels the query as above.
   */
  streamBytes(sql: string, params: QueryParams, format: string): AsyncIterable<Uint8Array>;
  /** Releases connections; pending calls may fail afterwards. Idempotent. */
  close(): Promise<void>;
}
