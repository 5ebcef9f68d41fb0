// Invariant: regenerates every generated document from its single source: docs/api.md's endpoint
// reference from the OpenAPI document and its error table from the error catalog, and
// deploy/clickhouse-cluster.sql from the statements CLICKHOUSE_CLUSTER makes the service run.
// Running it twice changes nothing; tests fail while a generated file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withApiReference } from '../api/api-reference-markdown.ts';
import { clusterSchemaSql, EXAMPLE_CLUSTER_NAME } from '../shared/analytics/clickhouse/analytics-schema.ts';
import { withErrorTable } from '../shared/errors/error-table-markdown.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GENERATED: readonly { path: URL; render: (before: string) => string }[] = [
  { path: new URL('../docs/api.md', import.meta.url), render: (doc) => withApiReference(withErrorTable(doc)) },
  { path: new URL('../deploy/clickhouse-cluster.sql', import.meta.url), render: () => clusterSchemaSql(EXAMPLE_CLUSTER_NAME) },
];

for (const { path, render } of GENERATED) {
  const before = readFileSync(path, 'utf8');
  const after = render(before);
  if (after !== before) writeFileSync(path, after);
  process.stdout.write(`${relative(ROOT, fileURLToPath(path))}: ${after === before ? 'up to date' : 'regenerated'}\n`);
}
