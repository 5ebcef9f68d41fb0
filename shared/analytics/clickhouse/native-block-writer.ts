// Invariant: writes ONE block of ClickHouse's Native format (the columnar format the server
// itself stores and exchanges), byte for byte as the engine writes it: VarUInt column count,
// VarUInt row count, then per column its name, its type and its values, every column holding
// exactly `rows` values. Only the types the analytics insert needs are written:
// LowCardinality(String), LowCardinality(Nullable(String)), UUID and DateTime64 (microseconds). A column is
// written whole by one call, so a caller can never interleave two columns. The buffer grows by
// doubling; nothing is allocated per value.
//
// LowCardinality, as the engine writes it in a Native block: UInt64 1 (keys serialization
// version), UInt64 0x600 | index width (additional keys, dictionary to update; width 0/1/2 =
// UInt8/16/32), UInt64 key count, the keys as Strings (index 0 is the default ''; a nullable
// column has NULL at 0 and '' at 1), UInt64 row count, then one index per row.
const MAX_UTF8_BYTES_PER_CHAR = 3;
const MAX_VARUINT_BYTES = 10;

/** A byte's value as a hex digit, or -1. */
const HEX_VALUE = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUE[i.toString(16).charCodeAt(0)] = i;
  HEX_VALUE[i.toString(16).toUpperCase().charCodeAt(0)] = i;
}
/** Where a UUID's text is copied (one native call) before its digits are decoded. */
const UUID_SCRATCH = Buffer.alloc(36);

/** Where each of the 16 bytes of a UUID goes: ClickHouse writes each 8-byte half little-endian. */
const UUID_BYTE_AT = [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];
/** Character offsets of the 16 bytes in the canonical 36-character text. */
const UUID_HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

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
   * A LowCardinality(String) or LowCardinality(Nullable(String)) column: each distinct value is
   * written once, each row as an index (what repeats in a batch of clicks costs one Map lookup).
   */
  lowCardinalityStringColumn(name: string, values: readonly (string | null)[], nullable: boolean): void {
    const keys: string[] = nullable ? ['', ''] : [''];
    const emptyIndex = nullable ? 1 : 0;
    const index = new Map<string, number>();
    const rowsIndex = new Uint32Array(this.rows);
    for (let i = 0; i < this.rows; i++) {
      const v = values[this.start + i];
      if (v == null) {
        if (!nullable) throw new TypeError(`column ${name}: row ${i} is not a string`);
        rowsIndex[i] = 0;
      } else if (v === '') rowsIndex[i] = emptyIndex;
      else {
        let k = index.get(v);
        if (k === undefined) {
          k = keys.length;
          keys.push(v);
          index.set(v, k);
        }
        rowsIndex[i] = k;
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
    let p = this.pos;
    for (let i = 0; i < this.rows; i++) {
      const k = rowsIndex[i] as number;
      b[p] = k & 0xff;
      if (width >= 1) b[p + 1] = (k >>> 8) & 0xff;
      if (width === 2) {
        b[p + 2] = (k >>> 16) & 0xff;
        b[p + 3] = (k >>> 24) & 0xff;
      }
      p += bytes;
    }
    this.pos = p;
  }

  /** A UUID column from canonical text (8-4-4-4-12 hex), each copied as bytes then decoded. */
  uuidColumn(name: string, values: readonly (string | null)[]): void {
    this.header(name, 'UUID');
    this.ensure(16 * this.rows);
    const b = this.buf;
    const text = UUID_SCRATCH;
    for (let i = 0; i < this.rows; i++) {
      const v = values[this.start + i];
      if (typeof v !== 'string' || v.length !== 36 || text.write(v, 0, 'latin1') !== 36) throw new TypeError(`column ${name}: row ${i} is not a UUID`);
      for (let k = 0; k < 16; k++) {
        const at = UUID_HEX_AT[k] as number;
        const hi = HEX_VALUE[text[at] as number] as number;
        const lo = HEX_VALUE[text[at + 1] as number] as number;
        if (hi < 0 || lo < 0) throw new TypeError(`column ${name}: row ${i} is not a UUID`);
        b[this.pos + (UUID_BYTE_AT[k] as number)] = (hi << 4) | lo;
      }
      this.pos += 16;
    }
  }

  /**
   * A DateTime64(6, 'UTC') column from microseconds since the epoch as decimal text: exact for
   * every Int64 (text beyond 2^53, such as instants after 2255, is read as a BigInt).
   */
  dateTime64MicrosColumn(name: string, type: string, micros: readonly (string | null)[]): void {
    this.header(name, type);
    this.ensure(8 * this.rows);
    for (let i = 0; i < this.rows; i++) {
      const text = micros[this.start + i];
      const n = Number(text);
      if (Number.isSafeInteger(n)) {
        const hi = Math.floor(n / 0x1_0000_0000);
        this.buf.writeUInt32LE(n - hi * 0x1_0000_0000, this.pos);
        this.buf.writeInt32LE(hi, this.pos + 4);
      } else if (typeof text === 'string' && /^-?\d{1,19}$/.test(text) && BigInt.asIntN(64, BigInt(text)) === BigInt(text)) {
        this.buf.writeBigInt64LE(BigInt(text), this.pos);
      } else throw new TypeError(`column ${name}: row ${i} is not an integer number of microseconds`);
      this.pos += 8;
    }
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
    this.pos += this.buf.write(s, this.pos, bytes, "utf8");
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
