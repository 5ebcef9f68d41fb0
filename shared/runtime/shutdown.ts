// Invariant: SIGTERM and SIGINT mark the process stopping (/readyz 503), then run the registered
// closers once, in reverse order of registration (servers stop accepting before the stores they write to are closed), then exit.
// Signals are idempotent: a second SIGTERM or SIGINT (a process-group signal after the parent
// already relayed one, an impatient Ctrl-C) only logs that shutdown is under way; it never kills
// the process mid-flush.
import type { Logger } from '../log/logger.ts';
import type { Readiness } from './readiness.ts';

export type Closer = () => Promise<void>;

export interface ShutdownOptions {
  /** Turns /readyz to 503 the moment a stop signal arrives, before the first closer runs. */
  readiness?: Readiness;
  exit?: (code: number) => void;
}

export function onShutdown(closers: Closer[], logger: Logger, o: ShutdownOptions = {}): void {
  const exit = o.exit ?? ((c: number) => process.exit(c));
  let closing = false;
  const run = async (signal: string) => {
    if (closing) {
      logger.info(`${signal}: shutdown already under way`);
      return;
    }
    closing = true;
    o.readiness?.stopping();
    logger.info(`${signal}: shutting down`);
    let code = 0;
    for (const close of [...closers].reverse()) {
      try {
        await close();
      } catch (err) {
        code = 1;
        logger.error({ err }, 'shutdown step failed');
      }
    }
    exit(code);
  };
  process.on('SIGTERM', () => void run('SIGTERM'));
  process.on('SIGINT', () => void run('SIGINT'));
}
