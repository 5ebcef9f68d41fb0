// Invariant: the export's byte handling is checked without an engine: ClickHouse's JSON escapes
// become JSON.stringify's (and nothing else changes), and however the engine's bytes are cut
// (mid-line, mid-escape, mid-character), the pieces add up to the same file and end at line ends.
import { describe, expect, it } from 'vitest';
import { CSV_HEADER, exportBytes, jsonStringifyEscapes } from './event-export.ts';

async function* from(chunks: readonly Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const c of chunks) yield c;
}

/** The engine's printed text cut into byte chunks of `cut` bytes (splitting UTF-8 characters too). */
function cutBytes(text: string, cut: number): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += cut) out.push(new Uint8Array(bytes.subarray(i, i + cut)));
  return out;
}

async function pieces(chunks: readonly Uint8Array[], format: 'json' | 'csv'): Promise<string[]> {
  const out: string[] = [];
  for await (const p of exportBytes(from(chunks), format)) out.push(Buffer.from(p).toString('utf8'));
  return out;
}

describe('jsonStringifyEscapes', () => {
  it('rewrites upper-case \\u00XX escapes and escaped U+2028/U+2029 as JSON.stringify prints them', () => {
    // What ClickHouse prints for "a\u001bb\u2028c\u000bd\u2029":
    const ch = '{"k":"a\\u001Bb\\u2028c\\u000Bd\\u2029"}\n';
    expect(jsonStringifyEscapes(ch)).toBe(`${JSON.stringify({ k: 'a\u001bb\u2028c\u000bd\u2029' })}\n`);
    expect(jsonStringifyEscapes('"\\u001B\\u001B\\u001F"')).toBe(JSON.stringify('\u001b\u001b\u001f'));
  });

  it('leaves text alone where the backslash belongs to an escaped backslash', () => {
    // The string `\u001B` as six characters is printed "\\u001B" by both.
    expect(jsonStringifyEscapes(JSON.stringify('\\u001B and \\u2028'))).toBe(JSON.stringify('\\u001B and \\u2028'));
    // An escaped backslash followed by a real escape.
    expect(jsonStringifyEscapes('"\\\\\\u001B"')).toBe(JSON.stringify('\\\u001b'));
    expect(jsonStringifyEscapes('"\\\\\\\\\\u2029"')).toBe(JSON.stringify('\\\\\u2029'));
    const plain = '{"k":"\\n\\t\\"\\\\ /Zürich 😀 \\u0001"}\n';
    expect(jsonStringifyEscapes(plain)).toBe(plain);
  });
});

describe('exportBytes', () => {
  const lines = Array.from({ length: 40 }, (_, i) => `{"i":${i},"s":"x\\u001By\\\\u001Bz${'w'.repeat(i * 97)}\\u2028 Zürich 😀"}\n`).join('');
  const expected = jsonStringifyEscapes(lines);

  it('gives the same file however the engine text is cut, in pieces that end at line ends', async () => {
    for (let cut = 1; cut < 200; cut += 7) {
      const out = await pieces(cutBytes(lines, cut), 'json');
      expect(out.join('')).toBe(expected);
      for (const p of out) expect(p.endsWith('\n')).toBe(true);
    }
  });

  it('cuts a big engine chunk into bounded pieces', async () => {
    const big = 'a,b,"c\r\nd"\r\n'.repeat(50_000);
    const out = await pieces(cutBytes(big, big.length), 'csv');
    expect(out[0]).toBe(CSV_HEADER);
    expect(out.join('')).toBe(CSV_HEADER + big);
    expect(out.length).toBeGreaterThan(5);
    expect(Math.max(...out.map((p) => p.length))).toBeLessThan(70 * 1024);
  });

  it('hands the engine bytes on without decoding them when no escape needs rewriting', async () => {
    const chunk = new Uint8Array(Buffer.from('{"a":"Zürich"}\n{"b":"\\n"}\n', 'utf8'));
    const out: Uint8Array[] = [];
    for await (const p of exportBytes(from([chunk]), 'json')) out.push(p);
    expect(out).toHaveLength(1);
    expect(out[0]!.buffer).toBe(chunk.buffer); // a view of the same memory, not a re-encoded copy
  });

  it('writes the CSV header for an empty export, and nothing for an empty NDJSON export', async () => {
    expect(await pieces([], 'csv')).toEqual([CSV_HEADER]);
    expect(await pieces([], 'json')).toEqual([]);
  });
});
