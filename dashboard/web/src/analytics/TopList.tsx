// Invariant: a top list is an HTML table; each known value is a button that filters the page by
// it (an unknown value, null, cannot be a filter and is plain text).
import { Button } from '../ui/Button.tsx';
import { Table } from '../ui/Table.tsx';

interface Row {
  key: string | null;
  events: number;
}

export interface TopListProps {
  title: string;
  /** The query parameter a click sets. */
  dimension: string;
  rows: Row[];
  /** What the null value stands for (default Unknown). */
  nullText?: string;
  onPick(dimension: string, value: string): void;
}

export function TopList({ title, dimension, rows, nullText = 'Unknown', onPick }: TopListProps) {
  return (
    <Table<Row>
      className="top-list"
      caption={title}
      rows={rows}
      rowKey={(r) => r.key ?? '\u0000'}
      empty="No events"
      columns={[
        {
          heading: 'Value',
          rowHeader: true,
          cell: (r) =>
            r.key === null ? (
              nullText
            ) : (
              <Button variant="link" onClick={() => onPick(dimension, r.key ?? '')} aria-label={`Filter by ${title}: ${r.key}`}>
                {r.key}
              </Button>
            ),
        },
        { heading: 'Events', cell: (r) => r.events.toLocaleString('en-GB') },
      ]}
    />
  );
}
