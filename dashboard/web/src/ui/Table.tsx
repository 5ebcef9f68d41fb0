// Invariant: every data table of the SPA is this component: a caption names it, column headings
// are <th scope="col">, a row-header column is <th scope="row">, and an empty body says so in one
// cell. On a phone (styles.css, `table.stack`) rows stack and each cell shows its column's label
// (data-label), so a table never makes the page scroll sideways.
import type { ReactNode } from 'react';

export interface Column<T> {
  /** The column's heading; `hideHeading` keeps it for screen readers only (an actions column). */
  heading: string;
  hideHeading?: boolean;
  /** What the heading cell holds instead of the text (a select-all checkbox); `heading` still labels the cells. */
  headingCell?: ReactNode;
  cell(row: T): ReactNode;
  /** The cell heads its row (<th scope="row">). */
  rowHeader?: boolean;
  className?: string;
}

export interface TableProps<T> {
  caption: ReactNode;
  /** Falsy entries are left out (a column some roles do not see). */
  columns: readonly (Column<T> | false | null | undefined)[];
  rows: readonly T[];
  rowKey(row: T): string;
  /** The one cell of an empty table; none: an empty body. */
  empty?: string;
  busy?: boolean;
  /** false: keep the grid on narrow screens (a visually hidden table). */
  stack?: boolean;
  className?: string;
}

export function Table<T>({ caption, columns, rows, rowKey, empty, busy, stack = true, className }: TableProps<T>) {
  const cols = columns.filter((c): c is Column<T> => Boolean(c));
  const classes = [stack ? 'stack' : '', className ?? ''].filter(Boolean).join(' ') || undefined;
  return (
    <table className={classes} aria-busy={busy || undefined}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {cols.map((c) => (
            <th key={c.heading} scope="col" className={c.className}>
              {c.headingCell ?? (c.hideHeading ? <span className="visually-hidden">{c.heading}</span> : c.heading)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && empty ? (
          <tr>
            <td colSpan={cols.length}>{empty}</td>
          </tr>
        ) : (
          rows.map((row) => (
            <tr key={rowKey(row)}>
              {cols.map((c) =>
                c.rowHeader ? (
                  <th key={c.heading} scope="row" className={c.className}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.heading} className={c.className} data-label={c.hideHeading || c.headingCell ? undefined : c.heading}>
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
