// Invariant: the production API process (`npm run start:api`), wiring only: config parsed once,
// every server URL required, the ports from the composition root, this process's outbox relay,
// and a clean shutdown on SIGTERM (server first, backends last).
import { apiSchema, loadConfigOrExit } from '../shared/config/config.ts';
import { openBackends } from '../shared/runtime/open-backends.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { onStartupFailure, startOrExit } from '../shared/runtime/startup.ts';
import { startApi } from './start-api.ts';

const config = loadConfigOrExit(apiSchema);
const log = (m: string): void => void process.stderr.write(`[api] ${m}\n`);
const backends = await startOrExit(() => openBackends(config, { requireServersFor: 'start:api', log }), log);
onStartupFailure(backends.close);
await backends.startOutboxRelay();
const api = await startOrExit(() => startApi(backends, config, log), log);
log(`listening on ${config.API_HOST}:${api.port}`);
onShutdown([backends.close, api.close], log);
