// Invariant: one autocannon round per process (so the orchestrator can pin it to the load core):
// requests cycle through the given path file in order, with the given Host header; the result is
// printed as one JSON line.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

interface Args {
  url: string;
  host: string;
  pathsFile: string;
  connections: number;
  durationSeconds: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const paths = readFileSync(args.pathsFile, 'utf8').split('\n').filter(Boolean);
let i = 0;

const result = await autocannon({
  url: args.url,
  connections: args.connections,
  duration: args.durationSeconds,
  headers: { host: args.host },
  requests: [
    {
      method: 'GET',
      setupRequest: (req) => {
        req.path = paths[i++ % paths.length] ?? '/';
        return req;
      },
    },
  ],
});

const stats = result.statusCodeStats as Record<string, { count: number }> | undefined;
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.total / (result.duration || args.durationSeconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(stats ?? {}).map(([k, v]) => [k, Number(v.count)])),
  })}\n`,
);
