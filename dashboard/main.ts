// Invariant: the production dashboard process (`npm run start:dashboard`), wiring only: config
// parsed once, DATABASE_URL and REDIS_URL required (the dashboard reads no analytics yet), its own
// outbox relay (dashboard writes reach every redirector through it), JSON logs, and a clean
// shutdown on SIGTERM. It serves the SPA built by `npm run build` (never builds it itself).
import { dashboardSchema, loadConfigOrExit } from '../shared/config/config.ts';
import { createLogger } from '../shared/log/logger.ts';
import { openBackends } from '../shared/runtime/open-backends.ts';
import { postgresCheck, Readiness } from '../shared/runtime/readiness.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { onStartupFailure, startOrExit } from '../shared/runtime/startup.ts';
import { startDashboard } from './start-dashboard.ts';

const config = loadConfigOrExit(dashboardSchema);
const say = (m: string): void => void process.stderr.write(`[dashboard] ${m}\n`);
const logger = createLogger('dashboard', config.LOG_LEVEL);
const backends = await startOrExit(() => openBackends(config, { requireServersFor: 'start:dashboard', logger }), say);
onStartupFailure(backends.close);
await backends.startOutboxRelay();
const readiness = new Readiness([postgresCheck(backends.db.sql)]);
const dashboard = await startOrExit(() => startDashboard(backends, config, { logger, readiness }), say);
logger.info(`listening on ${config.DASHBOARD_HOST}:${dashboard.port} (${dashboard.url})`);
onShutdown([backends.close, dashboard.close], logger, { readiness });
readiness.markReady();
