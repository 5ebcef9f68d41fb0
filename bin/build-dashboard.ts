// Invariant: `npm run build:dashboard` (and `prepare`, so `npm install` does it): builds the
// dashboard's pages when their sources changed since the last build; `--force` always builds.
import { ensureSpaBuilt, SPA_DIST } from '../dashboard/spa-assets.ts';
import { rmSync } from 'node:fs';

if (process.argv.includes('--force')) rmSync(SPA_DIST, { recursive: true, force: true });
const built = await ensureSpaBuilt((m) => process.stderr.write(`[dashboard] ${m}\n`));
if (!built) process.stderr.write(`[dashboard] pages up to date in ${SPA_DIST}\n`);
