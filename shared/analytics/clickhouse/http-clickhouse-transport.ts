// Invariant: production analytics talk to a ClickHouse server over HTTP through one
// @clickhouse/client instance per transport; statements, parameters and settings are exactly those
// the chDB transport receives, so the two adapters pass the same contract suite.
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { Readable } from 'node:stream';
import { redact } from '../../net/redact.ts';
import type { ClickHouseTransport, QueryParams } from './clickhouse-transport.ts';

export interface HttpClickHouseOptions {
  /** http[s]://[user[:password]@]host:port[/database] */
  url: string;
  /** Per-request timeout (ms). Default 30 s. */
  requestTimeoutMs?: number;
  maxOpenConnections?: number;
}

export class HttpClickHouseTransport implements ClickHouseTransport {
  readonly description: string;
  private readonly client: ClickHouseClient;
  private closed = false;

  constructor(options: HttpClickHouseOptions) {
    this.description = redact(options.url);
    this.client = createClient({
      url: options.url,
      request_timeout: options.requestTimeoutMs ?? 30_000,
      max_open_connections: options.maxOpenConnections ?? 10,
      application: 'shortlink-analytics',
      // Parameters travel in the URL (ClickHouse accepts URIs up to 1 MiB by default); multipart
      // parameters are left off because older servers (e.g. 24.8) do not read them.
      // Every failure is thrown to the caller, which decides what to log (the write buffer
      // reports through onError); the client's own error log would repeat each one.
      log: { level: ClickHouseLogLevel.OFF },
    });
  }

  async exec(sql: string, params: QueryParams = {}): Promise<void> {
    await this.client.command({ query: sql, query_params: { ...params } });
  }

  async insertNative(table: string, columns: readonly string[], block: Uint8Array, settings: Readonly<Record<string, string>>): Promise<void> {
    // The statement travels in the URL, the block as the request body.
    const result = await this.client.exec({
      query: `INSERT INTO ${table} (${columns.join(', ')}) FORMAT Native`,
      values: Readable.from([block]),
      clickhouse_settings: { ...settings } as ClickHouseSettings,
    });
    // The answer is empty; reading it to the end frees the socket for the next request.
    for await (const _ of result.stream) void _;
  }

  async queryRows<T>(sql: string, params: QueryParams): Promise<T[]> {
    const rs = await this.client.query({ query: sql, query_params: { ...params }, format: 'JSONEachRow' });
    return rs.json<T>();
  }

  async *streamRows<T>(sql: string, params: QueryParams): AsyncIterable<T[]> {
    const rs = await this.client.query({ query: sql, query_params: { ...params }, format: 'JSONEachRow' });
    const stream = rs.stream<T>();
    try {
      for await (const rows of stream) {
        if (rows.length > 0) yield rows.map((r) => r.json());
      }
    } finally {
      // Leaving early must release the socket instead of reading the rest of the response.
      if (!stream.readableEnded) rs.close();
    }
  }

  async *streamBytes(sql: string, params: QueryParams, format: string): AsyncIterable<Uint8Array> {
    const { stream } = await this.client.exec({ query: `${sql}\nFORMAT ${format}`, query_params: { ...params } });
    try {
      for await (const bytes of stream) yield bytes as Uint8Array;
    } finally {
      // Leaving early must release the socket instead of reading the rest of the response.
      if (!stream.readableEnded) stream.destroy();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close();
  }
}
