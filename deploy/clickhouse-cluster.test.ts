// deploy/clickhouse-cluster.sql is the cluster schema the service runs with CLICKHOUSE_CLUSTER, printed
// by `npm run docs`; this fails when the committed file is stale, and checks that the cluster's
// tables have exactly the single-node tables' columns. What the service sends to a cluster (DDL,
// insert and read settings) is tested in shared/analytics/store/analytics-store.cluster.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyticsSchema, clusterSchemaSql, EXAMPLE_CLUSTER_NAME } from '../shared/analytics/clickhouse/analytics-schema.ts';
import { CREATE_EVENTS_TABLE } from '../shared/analytics/clickhouse/events-table.ts';
import { CREATE_ROLLUP_BACKFILL_TABLE, CREATE_ROLLUP_TABLE } from '../shared/analytics/clickhouse/rollup-table.ts';

const columnsAndIndexes = (ddl: string): string[] => {
  const body = ddl.slice(ddl.indexOf('(') + 1, ddl.indexOf('\n)'));
  return body
    .split('\n')
    .map((l) => l.trim().replace(/,$/, ''))
    .filter((l) => l !== '' && !l.startsWith('--'));
};

describe('deploy/clickhouse-cluster.sql', () => {
  it('is the printed cluster schema (run `npm run docs` after changing the event schema)', () => {
    expect(readFileSync(new URL('./clickhouse-cluster.sql', import.meta.url), 'utf8')).toBe(clusterSchemaSql(EXAMPLE_CLUSTER_NAME));
  });

  it('declares each local table with exactly the columns and indexes of its single-node table', () => {
    const cluster = analyticsSchema({ name: 'c1', insertQuorum: 1 });
    const [events] = cluster.eventsTables;
    const [rollup, , backfill] = cluster.rollupTables;
    expect(columnsAndIndexes(CREATE_EVENTS_TABLE).length).toBeGreaterThan(25);
    expect(columnsAndIndexes(events!)).toEqual(columnsAndIndexes(CREATE_EVENTS_TABLE));
    expect(columnsAndIndexes(rollup!)).toEqual(columnsAndIndexes(CREATE_ROLLUP_TABLE));
    expect(columnsAndIndexes(backfill!)).toEqual(columnsAndIndexes(CREATE_ROLLUP_BACKFILL_TABLE));
  });

  it('prints for the cluster it is given, every statement ON CLUSTER', () => {
    const sql = clusterSchemaSql('analytics_eu');
    const statements = sql
      .split(';\n')
      .map((s) => s.replace(/^(--[^\n]*\n|\n)+/g, '').trim())
      .filter((s) => s !== '');
    // events (local, Distributed, each given the columns an older table lacks), the first rollup's
    // view dropped, rollup (local, Distributed), the backfill state, the view, the merge settings,
    // the rollup's projections (their merge and delete modes, by day, by hour).
    expect(statements).toHaveLength(14);
    for (const s of statements) expect(s).toMatch(/^(CREATE|ALTER|DROP) (TABLE|MATERIALIZED VIEW|VIEW) (IF (NOT )?EXISTS )?\w+ ON CLUSTER analytics_eu\b/);
    expect(sql).not.toContain(`ON CLUSTER ${EXAMPLE_CLUSTER_NAME} `);
  });
});
