// Invariant: `npm run bench [name]` runs one named benchmark (default: redirect; `analytics`, and
// `all` for both in sequence) and exits with its status; unknown names list the available ones.
import { analyticsBench } from './analytics-bench.ts';
import { redirectBench } from './redirect-bench.ts';

const BENCHES: Readonly<Record<string, () => Promise<void>>> = {
  redirect: redirectBench,
  analytics: analyticsBench,
  all: async () => {
    await redirectBench();
    await analyticsBench();
  },
};

const name = process.argv[2] ?? 'redirect';
const bench = BENCHES[name];
if (!bench) {
  process.stderr.write(`unknown bench '${name}'; available: ${Object.keys(BENCHES).join(', ')}\n`);
  process.exit(2);
}
try {
  await bench();
  process.exit(0);
} catch (err) {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
