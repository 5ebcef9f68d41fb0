// Usage: links and clicks this billing cycle against the plan, overage and its charge, seats and
// custom domains used.
import { useQuery } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import { call } from '../api.ts';
import { appRoute } from '../routes/root.tsx';

export const usageRoute = createRoute({ getParentRoute: () => appRoute, path: '/usage', component: UsagePage });

const n = (v: number) => v.toLocaleString('en-GB');

function UsagePage() {
  const usage = useQuery({ queryKey: ['usage'], queryFn: () => call('usage') });
  const u = usage.data;
  return (
    <>
      <h1>Usage</h1>
      {u ? (
        <>
          <p>
            Plan {u.plan}, billing cycle since {u.periodStart}.
          </p>
          <table>
            <caption>This cycle</caption>
            <thead>
              <tr>
                <th scope="col">What</th>
                <th scope="col">Used</th>
                <th scope="col">Included</th>
                <th scope="col">Overage</th>
                <th scope="col">Charge</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">Links created</th>
                <td>{n(u.links.used)}</td>
                <td>{n(u.links.limit)}</td>
                <td>{n(u.links.overage)}</td>
                <td>{u.links.overageEur.toFixed(2)} €</td>
              </tr>
              <tr>
                <th scope="row">Clicks</th>
                <td>{n(u.clicks.used)}</td>
                <td>{n(u.clicks.limit)}</td>
                <td>{n(u.clicks.overage)}</td>
                <td>{u.clicks.overageEur.toFixed(2)} €</td>
              </tr>
              <tr>
                <th scope="row">Seats</th>
                <td>{n(u.seats.used)}</td>
                <td>{n(u.seats.limit)}</td>
                <td>–</td>
                <td>–</td>
              </tr>
              <tr>
                <th scope="row">Custom domains</th>
                <td>{n(u.domains.used)}</td>
                <td>{n(u.domains.limit)}</td>
                <td>–</td>
                <td>–</td>
              </tr>
            </tbody>
          </table>
          <p>Overage charge this cycle: {u.totalOverageEur.toFixed(2)} €.</p>
        </>
      ) : (
        <p role="status">Loading…</p>
      )}
    </>
  );
}
