// Invariant: a readable listing is rendered here only: one header line and one line per row,
// columns left-aligned and separated by two spaces, every cell on one line (control characters
// shown as spaces), and '(none)' instead of an empty table.

export type Cell = string | number | boolean | null | undefined;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this replaces
const oneLine = (c: Cell): string => (c === null || c === undefined ? '-' : String(c)).replace(/[\u0000-\u001f\u007f]/g, ' ');

export function textTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  if (rows.length === 0) return '(none)';
  const lines = [headers.map(oneLine), ...rows.map((r) => headers.map((_, i) => oneLine(r[i])))];
  const widths = headers.map((_, i) => Math.max(...lines.map((l) => (l[i] ?? '').length)));
  return lines
    .map((l) =>
      l
        .map((c, i) => (i === l.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
