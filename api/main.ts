// Invariant: the production API process (`npm run start:api`): config parsed once, backends from
// DATABASE_URL / REDIS_URL, clean shutdown on SIGTERM.
import { apiSchema, loadConfigOrExit } from '../shared/config/config.ts';
import { openBackends } from '../shared/runtime/backends.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { startApi } from './start-api.ts';

const config = loadConfigOrExit(apiSchema);
const log = (m: string) => process.stderr.write(`[api] ${m}\n`);
const backends = await openBackends(config, log);
const api = await startApi(backends, {
  port: config.API_PORT,
  host: config.API_HOST,
  defaultShortDomain: config.DEFAULT_SHORT_DOMAIN,
  logLevel: config.LOG_LEVEL,
});
log(`listening on ${config.API_HOST}:${api.port}`);
onShutdown([backends.close, api.close], log);
