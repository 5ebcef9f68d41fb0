// Invariant: a compiled list filter is a postgres.js fragment whose SQL text comes only from the
// fixed column map and operators below; every value from the query (and the default short
// domain) travels as a bound parameter, never as SQL text. The fragment expects the aliases of
//   from links l left join domains d on d.id = l.domain_id and d.active
import type postgres from 'postgres';
import type { Sql } from '../../db/database.ts';
import { linkColumn } from '../link-table.ts';
import type { BooleanField, EnumField, ListQueryNode, StringField } from './list-query-ast.ts';

export type ListQueryFragment = postgres.PendingQuery<postgres.Row[]>;

export interface ListQueryContext {
  /** Host of smart links whose link has no active custom domain, e.g. `sho.rt`. */
  readonly shortLinkBase: string;
}

type ColumnField = Exclude<StringField, 'smartLink'> | BooleanField | EnumField;

function column(sql: Sql, field: ColumnField): ListQueryFragment {
  // The column names are the fixed constants of link-table.ts, never request text.
  return sql.unsafe(`l.${linkColumn(field)}`);
}

/**
 * The smart link is computed, so it cannot be indexed; the equality on the part after the last
 * '/' (short codes never contain '/') is implied by it and lets Postgres use the short_code index.
 */
function smartLinkEquals(sql: Sql, value: string, ctx: ListQueryContext): ListQueryFragment {
  const codeSuffix = value.slice(value.lastIndexOf('/') + 1);
  return sql`(l.short_code = ${codeSuffix}::text and (coalesce('https://' || d.host, ${ctx.shortLinkBase}::text) || '/' || l.short_code) = ${value}::text)`;
}

/** Turns a parsed filter into a boolean SQL fragment over `links l` / `domains d`. */
export function compileListQuery(node: ListQueryNode, sql: Sql, ctx: ListQueryContext): ListQueryFragment {
  switch (node.kind) {
    case 'and':
    case 'or': {
      // postgres.js joins an array of fragments with single spaces.
      const parts = node.operands.flatMap((operand, i) => {
        const compiled = compileListQuery(operand, sql, ctx);
        if (i === 0) return [compiled];
        return [node.kind === 'and' ? sql`and` : sql`or`, compiled];
      });
      return sql`(${parts})`;
    }
    case 'string':
      if (node.field === 'smartLink') return smartLinkEquals(sql, node.value, ctx);
      return sql`${column(sql, node.field)} = ${node.value}::text`;
    case 'boolean':
      return sql`${column(sql, node.field)} = ${node.value}`;
    case 'enum':
      return sql`${column(sql, node.field)} = ${node.value}::text`;
  }
}
