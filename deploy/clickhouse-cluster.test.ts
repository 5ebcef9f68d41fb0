// The cluster DDL in deploy/ restates the events table's columns by hand; this keeps the two
// from drifting apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CREATE_EVENTS_TABLE } from '../shared/analytics/clickhouse/clickhouse-sql.ts';

const columnsAndIndexes = (ddl: string): string[] => {
  const body = ddl.slice(ddl.indexOf('(') + 1, ddl.indexOf('\n)'));
  return body.split('\n').map((l) => l.trim().replace(/,$/, '')).filter((l) => l !== '' && !l.startsWith('--'));
};

describe('deploy/clickhouse-cluster.sql', () => {
  it('declares exactly the columns and indexes of the single-node events table', () => {
    const cluster = readFileSync(new URL('./clickhouse-cluster.sql', import.meta.url), 'utf8');
    const local = cluster.slice(cluster.indexOf('CREATE TABLE IF NOT EXISTS analytics_events_local'));
    expect(columnsAndIndexes(CREATE_EVENTS_TABLE).length).toBeGreaterThan(25);
    expect(columnsAndIndexes(local)).toEqual(columnsAndIndexes(CREATE_EVENTS_TABLE));
  });
});
