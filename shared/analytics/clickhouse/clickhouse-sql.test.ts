// Invariant: the insert encoding is checked without an engine: the positional row holds exactly
// the keyed row's values in INSERT_COLUMNS order, and the fast click-time text equals the exact
// BigInt one for every kind of input.
import { describe, expect, it } from 'vitest';
import { eventRecord } from '../events/analytics-fixtures.ts';
import { INSERT_COLUMNS, microsTextToDateTime64, microsToDateTime64, toInsertRow, toInsertValues } from './clickhouse-sql.ts';

describe('insert encoding', () => {
  it('toInsertValues is toInsertRow in INSERT_COLUMNS order', () => {
    const r = eventRecord({ orgId: 'org-1', referrer: 'https://example.com/', country: 'France', utmCampaign: 'spring', createdAtMicros: '1767225600123456' });
    const row = toInsertRow(r);
    expect(toInsertValues(r)).toEqual(INSERT_COLUMNS.map((c) => row[c]));
    expect(toInsertValues(r)[2]).toBe('2026-01-01 00:00:00.123456');
  });

  it('microsTextToDateTime64 equals microsToDateTime64, fast path or not', () => {
    const samples = ['0', '1', '999999', '1000000', '1000001', '-1', '-1000000', '-1234567', '0001767225600123456', '1767225600000000', '1767225600999999', '1767225601000000', '9999999999999999', '10000000000000000', '253402300799999999'];
    let x = 1_767_225_600_000_000;
    for (let i = 0; i < 200; i++) {
      x += Math.floor(Math.random() * 3_000_000);
      samples.push(String(x));
    }
    for (const s of samples) expect(microsTextToDateTime64(s), s).toBe(microsToDateTime64(BigInt(s)));
  });
});
