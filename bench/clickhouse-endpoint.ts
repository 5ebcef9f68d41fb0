// Invariant: the production row's ClickHouse: one process serving ClickHouse's HTTP interface over
// a real chDB engine on the data directory given (test/support/fake-clickhouse-http.ts, the same
// endpoint the HTTP store contract runs against), started pinned by the orchestrator. It prints
// `READY <port>` once it listens, and on SIGTERM stops listening, closes the engine (so the
// orchestrator can open the directory and count what was stored) and exits 0.
import { startFakeClickHouse } from '../test/support/fake-clickhouse-http.ts';

const dataPath = process.argv[2];
if (!dataPath) {
  process.stderr.write('usage: clickhouse-endpoint.ts <data directory>\n');
  process.exit(2);
}
const server = await startFakeClickHouse(dataPath);
process.stdout.write(`READY ${server.port}\n`);
process.once('SIGTERM', () => {
  void server.close().finally(() => process.exit(0));
});
