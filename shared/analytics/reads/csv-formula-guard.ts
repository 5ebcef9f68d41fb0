// Invariant: in a CSV export, a text cell whose first character makes a spreadsheet read it as a
// formula (OWASP "CSV injection": `=`, `+`, `-`, `@`, TAB, CR) is written with a leading `'`,
// and then quoted as any other cell. FORMULA_TRIGGERS is the one list: the engine's export SQL
// (clickhouse-sql.ts) and the JS form below are both derived from it. Only text cells are
// guarded: the event's other columns (eventId UUID, createdAt instant, schemaVersion, a small
// unsigned number) can never begin with a trigger, so no number changes type. NDJSON is raw.

export const FORMULA_TRIGGERS: readonly string[] = ['=', '+', '-', '@', '\t', '\r'];

/** The text as the CSV export writes it before quoting: `'` in front when it starts with a trigger. */
export function neutraliseFormula(text: string): string {
  return text.length > 0 && FORMULA_TRIGGERS.includes(text.charAt(0)) ? `'${text}` : text;
}

/** A trigger as a ClickHouse string literal (quotes and backslashes escaped, TAB and CR as escapes). */
function sqlLiteral(ch: string): string {
  const escaped = ch.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\t/g, '\\t').replace(/\r/g, '\\r');
  return `'${escaped}'`;
}

/**
 * neutraliseFormula as a ClickHouse expression over the String expression `text`. `substring`
 * counts bytes, and the first byte of a multi-byte UTF-8 character is never an ASCII trigger.
 */
export function neutraliseFormulaSql(text: string): string {
  return `if(substring(${text}, 1, 1) IN (${FORMULA_TRIGGERS.map(sqlLiteral).join(', ')}), concat('\\'', ${text}), ${text})`;
}
