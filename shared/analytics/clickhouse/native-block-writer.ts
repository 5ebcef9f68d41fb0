// Invariant: writes ONE block of ClickHouse's Native format (the columnar format the server
// itself stores and exchanges), byte for byte as the engine writes it: VarUInt column count,
// VarUInt row count, then per column its name, its type and its values, every column holding
// exactly `rows` values. Only the types the analytics insert needs are written:
// LowCardinality(String), LowCardinality(Nullable(String)) from dictionary columns, UUID from
// bytes and DateTime64 (microseconds) from integers. A column is written whole by one call, so a
// caller can never interleave two columns. The buffer grows by doubling; nothing is allocated per
// value.
//
// LowCardinality, as the engine writes it in a Native block: UInt64 1 (keys serialization
// version), UInt64 0x600 | index width (additional keys, dictionary to update; width 0/1/2 =
// UInt8/16/32), UInt64 key count, the keys as Strings (index 0 is the default ''; a nullable
// column has NULL at 0 and '' at 1), UInt64 row count, then one index per row.
import type { TextColumn } from '../events/event-batch.ts';

const MAX_UTF8_BYTES_PER_CHAR = 3;
const MAX_VARUINT_BYTES = 10;

export class NativeBlockWriter {
  private buf: Buffer;
  private pos = 0;

  /** Every column takes its values from index `start`, `rows` of them. */
  constructor(
    readonly rows: number,
    columns: number,
    bytesHint = 256 * Math.max(rows, 1),
    readonly start = 0,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(bytesHint, 64));
    this.varUInt(columns);
    this.varUInt(rows);
  }

  /**
   * A LowCardinality(String) or LowCardinality(Nullable(String)) column from a dictionary column:
   * each distinct value is written once (looked up once per dictionary entry, not per row), each
   * row as an index into those keys. When the dictionary is no larger than twice the block (a
   * batch's own dictionaries always are), every entry is keyed first and the rows are written in
   * one pass; otherwise (a slice of a large dictionary) only the entries the block's rows use.
   */
  lowCardinalityStringColumn(name: string, column: TextColumn, nullable: boolean): void {
    const { index, values } = column;
    const keys: string[] = nullable ? ['', ''] : [''];
    const keyOfText = new Map<string, number>();
    /** The key of each dictionary entry, plus one (0: not keyed yet). */
    const keyOf = new Uint32Array(values.length);
    const keyFor = (v: string | null | undefined): number => {
      if (v == null) return 1;
      if (v === '') return nullable ? 2 : 1;
      let known = keyOfText.get(v);
      if (known === undefined) {
        known = keys.length;
        keys.push(v);
        keyOfText.set(v, known);
      }
      return known + 1;
    };
    const refuseNull = (row: number): never => {
      throw new TypeError(`column ${name}: row ${row} is not a string`);
    };
    let rowKeys: Uint32Array | null = null;
    if (values.length <= 2 * this.rows && (nullable || !values.includes(null))) {
      for (let d = 0; d < values.length; d++) keyOf[d] = keyFor(values[d]);
    } else {
      rowKeys = new Uint32Array(this.rows);
      for (let i = 0; i < this.rows; i++) {
        const d = index[this.start + i] as number;
        let k = keyOf[d] as number;
        if (k === 0) {
          const v = values[d];
          if (v == null && !nullable) refuseNull(i);
          keyOf[d] = k = keyFor(v);
        }
        rowKeys[i] = k;
      }
    }
    this.header(name, nullable ? 'LowCardinality(Nullable(String))' : 'LowCardinality(String)');
    const width = keys.length <= 0x100 ? 0 : keys.length <= 0x10000 ? 1 : 2;
    this.uint64(1);
    this.uint64(0x600 | width);
    this.uint64(keys.length);
    for (const k of keys) this.string(k);
    this.uint64(this.rows);
    const bytes = 1 << width;
    this.ensure(bytes * this.rows);
    const b = this.buf;
    const p = this.pos;
    const start = this.start;
    const n = this.rows;
    if (rowKeys === null && width === 0) {
      for (let i = 0; i < n; i++) b[p + i] = (keyOf[index[start + i] as number] as number) - 1;
    } else {
      for (let i = 0; i < n; i++) {
        const k = (rowKeys === null ? (keyOf[index[start + i] as number] as number) : (rowKeys[i] as number)) - 1;
        const at = p + i * bytes;
        b[at] = k & 0xff;
        if (width >= 1) b[at + 1] = (k >>> 8) & 0xff;
        if (width === 2) {
          b[at + 2] = (k >>> 16) & 0xff;
          b[at + 3] = (k >>> 24) & 0xff;
        }
      }
    }
    this.pos = p + bytes * n;
  }

  /** A UUID column from 16 bytes a row in RFC 9562 byte order. */
  uuidColumn(name: string, ids: Uint8Array): void {
    this.header(name, 'UUID');
    if (ids.length < 16 * (this.start + this.rows))
      throw new TypeError(`column ${name}: ${this.start + this.rows} rows need ${16 * (this.start + this.rows)} bytes`);
    const bytes = 16 * this.rows;
    this.ensure(bytes);
    this.buf.set(ids.subarray(16 * this.start, 16 * this.start + bytes), this.pos);
    // Each 8-byte half little-endian: one native byte swap over the whole column, never a loop
    // over its bytes (the column is encoded in one event-loop turn).
    this.buf.subarray(this.pos, this.pos + bytes).swap64();
    this.pos += bytes;
  }

  /** A DateTime64(6, 'UTC') column from microseconds since the epoch (safe-integer Numbers, or BigInts). */
  dateTime64MicrosColumn(name: string, type: string, micros: Float64Array | BigInt64Array): void {
    this.header(name, type);
    this.ensure(8 * this.rows);
    const b = this.buf;
    if (micros instanceof BigInt64Array) {
      for (let i = 0; i < this.rows; i++) b.writeBigInt64LE(micros[this.start + i] as bigint, this.pos + 8 * i);
    } else {
      for (let i = 0; i < this.rows; i++) {
        const n = micros[this.start + i] as number;
        if (!Number.isSafeInteger(n)) throw new TypeError(`column ${name}: row ${i} is not an integer number of microseconds`);
        const hi = Math.floor(n / 0x1_0000_0000);
        b.writeUInt32LE(n - hi * 0x1_0000_0000, this.pos + 8 * i);
        b.writeInt32LE(hi, this.pos + 8 * i + 4);
      }
    }
    this.pos += 8 * this.rows;
  }

  /** The finished block (a view of the writer's buffer). */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  private uint64(value: number): void {
    this.ensure(8);
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.buf.writeUInt32LE(Math.floor(value / 0x1_0000_0000), this.pos + 4);
    this.pos += 8;
  }

  private header(name: string, type: string): void {
    this.string(name);
    this.string(type);
  }

  private string(s: string): void {
    this.ensure(MAX_VARUINT_BYTES + MAX_UTF8_BYTES_PER_CHAR * s.length);
    // Short ASCII strings (almost every value) are copied code unit by code unit: no native call.
    const n = s.length;
    if (n < 128) {
      const start = this.pos + 1;
      let ascii = true;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) {
          ascii = false;
          break;
        }
        this.buf[start + i] = c;
      }
      if (ascii) {
        this.buf[this.pos] = n;
        this.pos = start + n;
        return;
      }
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.varUInt(bytes);
    this.pos += this.buf.write(s, this.pos, bytes, 'utf8');
  }

  private varUInt(value: number): void {
    this.ensure(MAX_VARUINT_BYTES);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }
}
