// Usage: links and clicks this billing cycle against the plan, overage and its charge, seats and
// custom domains used.
import { useQuery } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import type { ResponseOf } from '../../../contract/schemas.ts';
import { queries } from '../data/queries.ts';
import { appRoute } from '../routes/root.tsx';
import { Table } from '../ui/Table.tsx';

export const usageRoute = createRoute({ getParentRoute: () => appRoute, path: '/usage', staticData: { nav: { label: 'Usage' } }, component: UsagePage });

const n = (v: number) => v.toLocaleString('en-GB');

type Usage = ResponseOf<'usage'>;
interface Line {
  what: string;
  used: number;
  limit: number;
  /** Counted past the plan, with its charge; none: not charged. */
  overage?: { count: number; eur: number };
}

const linesOf = (u: Usage): Line[] => [
  { what: 'Links created', used: u.links.used, limit: u.links.limit, overage: { count: u.links.overage, eur: u.links.overageEur } },
  { what: 'Clicks', used: u.clicks.used, limit: u.clicks.limit, overage: { count: u.clicks.overage, eur: u.clicks.overageEur } },
  { what: 'Seats', used: u.seats.used, limit: u.seats.limit },
  { what: 'Custom domains', used: u.domains.used, limit: u.domains.limit },
];

function UsagePage() {
  const usage = useQuery(queries.usage());
  const u = usage.data;
  return (
    <>
      <h1>Usage</h1>
      {u ? (
        <>
          <p>
            Plan {u.plan}, billing cycle since {u.periodStart}.
          </p>
          <Table<Line>
            caption="This cycle"
            rows={linesOf(u)}
            rowKey={(l) => l.what}
            columns={[
              { heading: 'What', rowHeader: true, cell: (l) => l.what },
              { heading: 'Used', cell: (l) => n(l.used) },
              { heading: 'Included', cell: (l) => n(l.limit) },
              { heading: 'Overage', cell: (l) => (l.overage ? n(l.overage.count) : '–') },
              { heading: 'Charge', cell: (l) => (l.overage ? `${l.overage.eur.toFixed(2)} €` : '–') },
            ]}
          />
          <p>Overage charge this cycle: {u.totalOverageEur.toFixed(2)} €.</p>
        </>
      ) : (
        <p role="status">Loading…</p>
      )}
    </>
  );
}
