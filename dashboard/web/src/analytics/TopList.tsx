// Invariant: a top list is an HTML table; each known value is a button that filters the page by
// it (an unknown value, null, cannot be a filter and is plain text).
export interface TopListProps {
  title: string;
  /** The query parameter a click sets. */
  dimension: string;
  rows: { key: string | null; events: number }[];
  onPick(dimension: string, value: string): void;
}

export function TopList({ title, dimension, rows, onPick }: TopListProps) {
  return (
    <table className="top-list">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Value</th>
          <th scope="col">Events</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={2}>No events</td>
          </tr>
        ) : (
          rows.map((r) => (
            <tr key={r.key ?? '\u0000'}>
              <th scope="row">
                {r.key === null ? (
                  'Unknown'
                ) : (
                  <button type="button" className="link-button" onClick={() => onPick(dimension, r.key ?? '')} aria-label={`Filter by ${title}: ${r.key}`}>
                    {r.key}
                  </button>
                )}
              </th>
              <td>{r.events.toLocaleString('en-GB')}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
