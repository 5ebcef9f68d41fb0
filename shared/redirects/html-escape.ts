// Invariant: this is the only way a value enters an HTML page the redirector writes. The result
// is safe in element text and in double- or single-quoted attribute values: & < > " ' ` = are
// replaced by character references, and C0 controls other than tab/newline are dropped.

const REPLACEMENTS: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
  '=': '&#61;',
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this escapes
const UNSAFE = /[&<>"'`=\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

export function escapeHtml(value: string): string {
  return value.replace(UNSAFE, (ch) => REPLACEMENTS[ch] ?? '');
}
