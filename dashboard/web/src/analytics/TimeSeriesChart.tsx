// Invariant: the time series is drawn by uPlot on a canvas inside a figure whose accessible name
// says what it shows; the same numbers are in a visually hidden table for screen readers (and
// tests). Its colours are the stylesheet's tokens (ui/tokens.ts). uPlot styles its elements
// through the CSSOM only, which the strict CSP allows.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { Table } from '../ui/Table.tsx';
import { token } from '../ui/tokens.ts';

export interface Bucket {
  key: string | null;
  events: number;
}

export interface TimeSeriesChartProps {
  title: string;
  timeZone: string;
  interval: string;
  current: Bucket[];
  /** The previous period's buckets, aligned by position (drawn dashed). */
  previous?: Bucket[];
}

export function TimeSeriesChart({ title, timeZone, interval, current, previous }: TimeSeriesChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const xs = current.map((b) => Date.parse(b.key ?? '') / 1000);
    const ys = current.map((b) => b.events);
    const prev = current.map((_, i) => previous?.[i]?.events ?? null);
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth || 800),
        height: 260,
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timeZone),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        series: [
          {},
          { label: 'This period', stroke: token('--color-accent'), width: 2, fill: token('--color-accent-wash') },
          { label: 'Previous period', stroke: token('--color-chart-previous'), width: 1, dash: [6, 4] },
        ],
        axes: [{}, { label: 'Events' }],
      },
      [xs, ys, prev],
      el,
    );
    return () => plot.destroy();
  }, [current, previous, timeZone]);
  const total = current.reduce((n, b) => n + b.events, 0);
  return (
    <figure className="chart">
      <div ref={holder} role="img" aria-label={`${title}: ${total.toLocaleString('en-GB')} events by ${interval}`} data-chart="time-series" />
      <figcaption>{title}</figcaption>
      <Table<{ bucket: Bucket; previous?: Bucket }>
        className="visually-hidden"
        stack={false}
        caption={`${title}, by ${interval}`}
        rows={current.map((bucket, i) => ({ bucket, previous: previous?.[i] }))}
        rowKey={(r) => r.bucket.key ?? ''}
        columns={[
          { heading: 'Starts', rowHeader: true, cell: (r) => r.bucket.key },
          { heading: 'Events', cell: (r) => r.bucket.events },
          previous && { heading: 'Previous period', cell: (r) => r.previous?.events ?? '' },
        ]}
      />
    </figure>
  );
}
