// Invariant: what NativeBlockWriter writes, the real engine (chDB) reads back unchanged: every
// column type it writes, NULL apart from '', non-ASCII text, every LowCardinality index width
// (UInt8, UInt16, UInt32), several blocks in one insert, and a block that starts mid-array.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityIndex } from '../events/event-batch.ts';
import { writeEventId } from '../events/event-id.ts';
import { ChdbTransport } from './chdb-transport.ts';
import { NativeBlockWriter } from './native-block-writer.ts';

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'native-block-'));
let chdb: ChdbTransport;

beforeAll(async () => {
  chdb = new ChdbTransport(join(dir, 'db'));
  await chdb.exec(
    `CREATE TABLE t (i UInt32, s String, n Nullable(String), lc LowCardinality(Nullable(String)), u UUID, at DateTime64(6, 'UTC')) ENGINE = MergeTree ORDER BY i`,
  );
});

afterAll(async () => {
  await chdb?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Row {
  s: string;
  n: string | null;
  lc: string | null;
  u: string;
  micros: string;
}

/** A column of one value per row (the records' form). */
const rowsColumn = (values: readonly (string | null)[]) => ({ index: identityIndex(values.length), values });

function uuidBytes(rows: readonly Row[]): Uint8Array {
  const out = new Uint8Array(16 * rows.length);
  for (const [i, r] of rows.entries()) expect(writeEventId(r.u, out, 16 * i)).toBe(true);
  return out;
}

function block(rows: readonly Row[], ids: readonly number[], start = 0, count = rows.length - start): Buffer {
  const w = new NativeBlockWriter(count, 6, 64, start);
  w.lowCardinalityStringColumn('i', rowsColumn(ids.map(String)), false);
  w.lowCardinalityStringColumn('s', rowsColumn(rows.map((r) => r.s)), false);
  w.lowCardinalityStringColumn('n', rowsColumn(rows.map((r) => r.n)), true);
  w.lowCardinalityStringColumn('lc', rowsColumn(rows.map((r) => r.lc)), true);
  w.uuidColumn('u', uuidBytes(rows));
  w.dateTime64MicrosColumn(
    'at',
    "DateTime64(6, 'UTC')",
    BigInt64Array.from(rows, (r) => BigInt(r.micros)),
  );
  return w.finish();
}

async function readBack(from: number, to: number): Promise<Row[]> {
  return chdb.queryRows<Row>(
    'SELECT s, n, lc, toString(u) AS u, toString(toUnixTimestamp64Micro(at)) AS micros FROM t WHERE i >= {from:UInt32} AND i < {to:UInt32} ORDER BY i',
    { from, to },
  );
}

const uuid = (i: number): string => `0192a3b4-c5d6-7e8f-9012-${i.toString(16).padStart(12, '0')}`;

describe('NativeBlockWriter (read back by chDB)', () => {
  it('keeps NULL apart from empty text, non-ASCII text, UUIDs and microseconds', async () => {
    const rows: Row[] = [
      { s: '', n: null, lc: '', u: uuid(1), micros: '1795388059381001' },
      { s: 'Zürich ☃ 𝄞', n: '', lc: null, u: 'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF'.toLowerCase(), micros: '-2208988800000000' },
      { s: 'x'.repeat(300), n: 'a\tb\nc\\d\'e"', lc: 'same', u: '00000000-0000-0000-0000-000000000000', micros: '10413791999999999' },
      { s: 'x'.repeat(300), n: 'a\tb\nc\\d\'e"', lc: 'same', u: uuid(4), micros: '0' },
    ];
    await chdb.insertNative('t', ['i', 's', 'n', 'lc', 'u', 'at'], block(rows, [0, 1, 2, 3]), {});
    expect(await readBack(0, 4)).toEqual(rows);
  });

  for (const distinct of [255, 256, 257, 65_535, 65_536, 70_000]) {
    it(`writes ${distinct} distinct values with the right index width`, async () => {
      const base = 1_000_000 * (distinct % 97) + distinct;
      const rows: Row[] = Array.from({ length: distinct + 10 }, (_, i) => ({
        s: `v${i % distinct}`,
        n: i % 3 === 0 ? null : `n${i % distinct}`,
        lc: `l${i}`,
        u: uuid(i),
        micros: String(1_700_000_000_000_000 + i),
      }));
      const ids = rows.map((_, i) => base + i);
      await chdb.insertNative('t', ['i', 's', 'n', 'lc', 'u', 'at'], block(rows, ids), {});
      expect(await readBack(base, base + rows.length)).toEqual(rows);
    });
  }

  it('inserts several blocks, each from a slice of the arrays, as one insert', async () => {
    const rows: Row[] = Array.from({ length: 25 }, (_, i) => ({
      s: `s${i}`,
      n: `n${i % 4}`,
      lc: null,
      u: uuid(100 + i),
      micros: String(1_800_000_000_000_000 + i),
    }));
    const ids = rows.map((_, i) => 5_000_000 + i);
    const blocks = [block(rows, ids, 0, 10), block(rows, ids, 10, 10), block(rows, ids, 20, 5)];
    await chdb.insertNative('t', ['i', 's', 'n', 'lc', 'u', 'at'], Buffer.concat(blocks), {});
    expect(await readBack(5_000_000, 5_000_025)).toEqual(rows);
  });

  it('writes a dictionary column whose rows share values (each distinct value once), and safe-integer Number times', async () => {
    const values = ['Chrome', null, '', 'Chrome', 'Firefox'];
    const index = Uint32Array.from([0, 1, 2, 3, 4, 0, 3, 4, 1, 2]);
    const at = Float64Array.from(index, (d, i) => 1_767_225_600_000_000 + 1000 * i + d);
    const w = new NativeBlockWriter(10, 3, 64);
    w.lowCardinalityStringColumn('i', rowsColumn(Array.from(index, (_, i) => String(6_000_000 + i))), false);
    w.lowCardinalityStringColumn('lc', { index, values }, true);
    w.dateTime64MicrosColumn('at', "DateTime64(6, 'UTC')", at);
    await chdb.insertNative('t', ['i', 'lc', 'at'], w.finish(), {});
    const back = await chdb.queryRows<{ lc: string | null; micros: string }>(
      'SELECT lc, toString(toUnixTimestamp64Micro(at)) AS micros FROM t WHERE i >= 6000000 AND i < 6000010 ORDER BY i',
      {},
    );
    expect(back).toEqual(Array.from(index, (d, i) => ({ lc: values[d], micros: String(at[i]) })));
    // 'Chrome' is written once although two dictionary entries hold it.
    const w2 = new NativeBlockWriter(2, 1, 64);
    w2.lowCardinalityStringColumn('lc', { index: Uint32Array.from([0, 3]), values }, true);
    expect(w2.finish().toString('latin1').split('Chrome')).toHaveLength(2);
  });

  it('refuses what the column cannot hold, and leaves no staged file behind', async () => {
    expect(() => new NativeBlockWriter(1, 1).lowCardinalityStringColumn('s', rowsColumn([null]), false)).toThrow(/not a string/);
    expect(() => new NativeBlockWriter(2, 1).uuidColumn('u', new Uint8Array(16))).toThrow(/need 32 bytes/);
    expect(() => new NativeBlockWriter(1, 1).dateTime64MicrosColumn('at', 'DateTime64(6)', Float64Array.from([1.5]))).toThrow(/microseconds/);
    await expect(chdb.insertNative('t', ['i'], Buffer.from('garbage'), {})).rejects.toThrow();
    expect(readdirSync(join(dir, 'db', 'user_files', 'insert-staging'))).toEqual([]);
  });
});
