// Invariant: the export's text handling is checked without an engine: ClickHouse's JSON escapes
// become JSON.stringify's (and nothing else changes), and however the engine's text is cut
// (mid-line, mid-escape), the pieces add up to the same file and end at line ends.
import { describe, expect, it } from 'vitest';
import { CSV_HEADER, exportText, jsonStringifyEscapes } from './event-export.ts';

async function* from(chunks: readonly string[]): AsyncIterable<string> {
  for (const c of chunks) yield c;
}

async function pieces(chunks: readonly string[], format: 'json' | 'csv'): Promise<string[]> {
  const out: string[] = [];
  for await (const p of exportText(from(chunks), format)) out.push(p);
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

describe('exportText', () => {
  const lines = Array.from({ length: 40 }, (_, i) => `{"i":${i},"s":"x\\u001By\\\\u001Bz${'w'.repeat(i * 97)}\\u2028"}\n`).join('');
  const expected = jsonStringifyEscapes(lines);

  it('gives the same file however the engine text is cut, in pieces that end at line ends', async () => {
    for (let cut = 1; cut < 200; cut += 7) {
      const chunks: string[] = [];
      for (let i = 0; i < lines.length; i += cut) chunks.push(lines.slice(i, i + cut));
      const out = await pieces(chunks, 'json');
      expect(out.join('')).toBe(expected);
      for (const p of out) expect(p.endsWith('\n')).toBe(true);
    }
  });

  it('cuts a big engine chunk into bounded pieces', async () => {
    const big = 'a,b,"c\r\nd"\r\n'.repeat(50_000);
    const out = await pieces([big], 'csv');
    expect(out[0]).toBe(CSV_HEADER);
    expect(out.join('')).toBe(CSV_HEADER + big);
    expect(out.length).toBeGreaterThan(5);
    expect(Math.max(...out.map((p) => p.length))).toBeLessThan(70 * 1024);
  });

  it('writes the CSV header for an empty export, and nothing for an empty NDJSON export', async () => {
    expect(await pieces([], 'csv')).toEqual([CSV_HEADER]);
    expect(await pieces([], 'json')).toEqual([]);
  });
});
