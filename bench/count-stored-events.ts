// Invariant: prints, as one JSON line, how many event rows the analytics table in the chDB data
// directory given holds and how many distinct event ids among them (chDB opens one data path per
// process, so the orchestrator counts each store in a process of its own, after the process that
// wrote it has exited).
import { Session } from 'chdb';
import { EVENTS_TABLE } from '../shared/analytics/clickhouse/events-table.ts';
import { EVENT_FIELDS } from '../shared/analytics/events/event-schema.ts';

const dataPath = process.argv[2];
if (!dataPath) {
  process.stderr.write('usage: count-stored-events.ts <chDB data directory>\n');
  process.exit(2);
}
const session = new Session(dataPath);
try {
  const result = await session.queryBindAsync(
    `SELECT count() AS rows, uniqExact(${EVENT_FIELDS.eventId.column}) AS distinct FROM ${EVENTS_TABLE}`,
    {},
    { format: 'JSONEachRow' },
  );
  const row = JSON.parse(result.text()) as { rows: string | number; distinct: string | number };
  process.stdout.write(`${JSON.stringify({ rows: Number(row.rows), distinct: Number(row.distinct) })}\n`);
} finally {
  session.close();
}
