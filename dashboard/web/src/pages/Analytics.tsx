// The Analytics page, organisation-wide or for one link (the shortCode filter): a range preset or
// custom days (the URL's search params hold range and filters, so a view can be bookmarked and
// Back works), the time series against the previous period, top lists whose rows filter the
// page, and export buttons where the plan has ANALYTICS_EXPORT.
import { createRoute, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { DIMENSION_NAMES, DIMENSIONS, type Dimension, type DimensionSpec, EVENTS_FILTER_DIMENSIONS } from '../../../../shared/analytics/model/dimensions.ts';
import { BOTS_FILTERS, type BotsFilter } from '../../../../shared/analytics/model/event-values.ts';
import { DOWNLOADS } from '../../../contract/routes.ts';
import { ApiError } from '../api.ts';
import { MAX_CUSTOM_DAYS, PRESETS, type PresetId, presetRange } from '../analytics/ranges.ts';
import { TimeSeriesChart } from '../analytics/TimeSeriesChart.tsx';
import { TopList } from '../analytics/TopList.tsx';
import { type AnalyticsQuery, useAnalytics } from '../analytics/use-analytics.ts';
import { appRoute } from '../routes/root.tsx';
import { useSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
import { Field, FormError } from '../ui/Field.tsx';

/** The top lists, in page order, are the dimensions (each also a filter parameter), with their titles. */
const titleOf = (d: string): string | undefined => (DIMENSIONS as Record<string, { title: string }>)[d]?.title;

export type AnalyticsSearch = { range?: PresetId | 'custom'; from?: string; to?: string; bots?: BotsFilter } & Partial<Record<Dimension, string>>;

/** Whose visits the page counts: people by default. */
const AUDIENCES: { bots: BotsFilter; label: string }[] = [
  { bots: 'exclude', label: 'People' },
  { bots: 'only', label: 'Bots' },
  { bots: 'include', label: 'Everyone' },
];

const isDate = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);

export const analyticsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/analytics',
  staticData: { nav: { label: 'Analytics' } },
  validateSearch: (s: Record<string, unknown>): AnalyticsSearch => {
    const out: AnalyticsSearch = {};
    if (s.range === 'custom' || PRESETS.some((p) => p.id === s.range)) out.range = s.range as AnalyticsSearch['range'];
    if (isDate(s.from)) out.from = s.from;
    if (isDate(s.to)) out.to = s.to;
    if (BOTS_FILTERS.some((b) => b === s.bots)) out.bots = s.bots as BotsFilter;
    for (const d of DIMENSION_NAMES) if (typeof s[d] === 'string' && s[d] !== '') out[d] = s[d];
    return out;
  },
  component: AnalyticsPage,
});

function exportHref(query: Record<string, string | undefined>, format: 'csv' | 'json'): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...query, format })) if (v) qs.set(k, v);
  return `${DOWNLOADS.analyticsExport}?${qs}`;
}

function AnalyticsPage() {
  const search = analyticsRoute.useSearch();
  const navigate = useNavigate({ from: '/analytics' });
  const view = useSession();
  const timeZone = view.org?.timezone ?? 'UTC';
  const range = search.range ?? '7d';
  const custom = range === 'custom';
  const [now] = useState(() => Date.now());
  const preset = custom ? null : presetRange(range, timeZone, now);
  const from = custom ? (search.from ?? presetRange('30d', timeZone, now).from) : (preset?.from ?? '');
  const to = custom ? (search.to ?? presetRange('30d', timeZone, now).to) : (preset?.to ?? '');
  const filters = useMemo(() => Object.fromEntries(DIMENSION_NAMES.filter((d) => search[d]).map((d) => [d, search[d]])), [search]);
  const bots = search.bots ?? 'exclude';
  const query: AnalyticsQuery = useMemo(() => ({ from, to, bots, ...filters }), [from, to, bots, filters]);
  const analytics = useAnalytics(query);
  const [customFrom, setCustomFrom] = useState(from);
  const [customTo, setCustomTo] = useState(to);
  // The fields show the range on view (a preset's too); what was typed stays until it is applied.
  useEffect(() => {
    setCustomFrom(from);
    setCustomTo(to);
  }, [from, to]);
  const rangeError = analytics.error instanceof ApiError ? analytics.error.message : undefined;

  const setFilter = (dimension: string, value: string | undefined) => void navigate({ search: { ...search, [dimension]: value } });
  const applyCustom = (e: FormEvent) => {
    e.preventDefault();
    void navigate({ search: { ...search, range: 'custom', from: customFrom, to: customTo } });
  };
  const data = analytics.data;
  const total = data?.series.total ?? 0;
  const before = data?.previous.total ?? 0;
  const change = before === 0 ? null : Math.round(((total - before) / before) * 1000) / 10;
  // The export takes the events endpoints' filters only.
  const exportQuery = { from, to, bots, ...Object.fromEntries(EVENTS_FILTER_DIMENSIONS.map((d) => [d, search[d]])) };
  const activeFilters = Object.entries(filters);
  return (
    <>
      <h1>{search.shortCode ? `Analytics of ${search.shortCode}` : 'Analytics'}</h1>
      <fieldset className="range">
        <legend>Range</legend>
        {PRESETS.map((p) => (
          <Button
            key={p.id}
            aria-pressed={range === p.id}
            onClick={() => void navigate({ search: { ...search, range: p.id, from: undefined, to: undefined } })}
          >
            {p.label}
          </Button>
        ))}
        <form onSubmit={applyCustom} className="filters" aria-label="Custom range">
          <Field
            label="First day"
            placeholder="YYYY-MM-DD"
            inputMode="numeric"
            autoComplete="off"
            value={customFrom}
            onChange={setCustomFrom}
            error={rangeError}
          />
          <Field
            label="Last day"
            placeholder="YYYY-MM-DD"
            inputMode="numeric"
            autoComplete="off"
            value={customTo}
            onChange={setCustomTo}
            hint={`At most ${MAX_CUSTOM_DAYS} days, in ${timeZone}.`}
          />
          <Button type="submit" aria-pressed={custom}>
            Show custom range
          </Button>
        </form>
      </fieldset>
      <fieldset className="range">
        <legend>Visits</legend>
        {AUDIENCES.map((a) => (
          <Button key={a.bots} aria-pressed={bots === a.bots} onClick={() => void navigate({ search: { ...search, bots: a.bots } })}>
            {a.label}
          </Button>
        ))}
      </fieldset>
      {activeFilters.length > 0 ? (
        <ul className="active-filters" aria-label="Active filters">
          {activeFilters.map(([d, v]) => (
            <li key={d}>
              {titleOf(d)}: {v}{' '}
              <Button variant="secondary" onClick={() => setFilter(d, undefined)} aria-label={`Remove filter ${d}: ${v}`}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      <FormError message={analytics.isError && !rangeError ? 'The analytics could not be loaded.' : undefined} />
      {data ? (
        <>
          <p role="status">
            {total.toLocaleString('en-GB')} events from {data.series.from} to {data.series.to} ({timeZone}); previous period {data.previous.from} to{' '}
            {data.previous.to}: {before.toLocaleString('en-GB')}
            {change === null ? '' : ` (${change > 0 ? '+' : ''}${change} %)`}.
          </p>
          <p className="visitors">
            <strong>{data.visitors.total.toLocaleString('en-GB')} visitors</strong> in the same range (a person counts once a day; nobody is tracked from one
            day to the next).
          </p>
          <TimeSeriesChart
            title={`Events from ${data.series.from} to ${data.series.to}`}
            timeZone={timeZone}
            interval={data.series.interval ?? 'day'}
            current={data.series.data}
            previous={data.previous.data}
          />
          {data.exportAllowed ? (
            <p className="exports">
              <a className="button-link" href={exportHref(exportQuery, 'csv')} download>
                Export events (CSV)
              </a>{' '}
              <a className="button-link" href={exportHref(exportQuery, 'json')} download>
                Export events (NDJSON)
              </a>{' '}
              <span className="hint">Every event of the range; the visits choice and the link and click-source filters apply.</span>
            </p>
          ) : null}
          <div className="top-lists">
            {DIMENSION_NAMES.filter((d) => !(d === 'shortCode' && search.shortCode)).map((d) => (
              <TopList
                key={d}
                title={DIMENSIONS[d].title}
                dimension={d}
                rows={data.top[d].data}
                nullText={(DIMENSIONS[d] as DimensionSpec).nullText}
                onPick={(dim, value) => setFilter(dim, value)}
              />
            ))}
          </div>
        </>
      ) : analytics.isPending ? (
        <p role="status">Loading…</p>
      ) : null}
    </>
  );
}
