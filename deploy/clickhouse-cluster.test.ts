// deploy/clickhouse-cluster.sql is generated from the event schema by `npm run docs`; this fails
// when the committed file is stale.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clusterDdl, CREATE_EVENTS_TABLE } from '../shared/analytics/clickhouse/events-table.ts';
import { clusterSchemaDdl, CREATE_ROLLUP_TABLE } from '../shared/analytics/clickhouse/rollup-table.ts';

const columnsAndIndexes = (ddl: string): string[] => {
  const body = ddl.slice(ddl.indexOf('(') + 1, ddl.indexOf('\n)'));
  return body
    .split('\n')
    .map((l) => l.trim().replace(/,$/, ''))
    .filter((l) => l !== '' && !l.startsWith('--'));
};

describe('deploy/clickhouse-cluster.sql', () => {
  it('is the generated cluster DDL (run `npm run docs` after changing the event schema)', () => {
    expect(readFileSync(new URL('./clickhouse-cluster.sql', import.meta.url), 'utf8')).toBe(clusterSchemaDdl());
  });

  it('declares exactly the columns and indexes of the single-node events table', () => {
    const cluster = clusterDdl();
    const local = cluster.slice(cluster.indexOf('CREATE TABLE IF NOT EXISTS analytics_events_local'));
    expect(columnsAndIndexes(CREATE_EVENTS_TABLE).length).toBeGreaterThan(25);
    expect(columnsAndIndexes(local)).toEqual(columnsAndIndexes(CREATE_EVENTS_TABLE));
  });

  it('declares the rollup with the single-node columns, its view on the local events table and a Distributed twin', () => {
    const cluster = clusterSchemaDdl();
    const local = cluster.slice(cluster.indexOf('CREATE TABLE IF NOT EXISTS analytics_rollup_15m_local'));
    expect(columnsAndIndexes(local)).toEqual(columnsAndIndexes(CREATE_ROLLUP_TABLE));
    expect(cluster).toContain('ENGINE = ReplicatedSummingMergeTree(');
    expect(cluster).toContain('TO analytics_rollup_15m_local AS');
    expect(cluster).toContain("merge(currentDatabase(), '^analytics_events_local$')");
    expect(cluster).toContain('ENGINE = Distributed(events, currentDatabase(), analytics_rollup_15m_local');
  });
});
