// Invariant: a process that cannot start says so in one message and exits non-zero: a
// configuration problem (ConfigError: every problem listed, naming the setting; SetupError: one
// line naming the problem and the setting that fixes it) exits 2, anything else 1, and no stack
// trace is printed. What the process had already opened (registered with onStartupFailure: the
// DATA_DIR lock, the backends and their embedded Postgres) is closed first, newest first, so a
// failed start leaves nothing running and no stray file behind.
import { ConfigError } from '../config/config.ts';
import { redact } from '../net/redact.ts';

export const EXIT_CONFIG = 2;
export const EXIT_STARTUP = 1;
const CLEANUP_DEADLINE_MS = 10_000;

/** A start-up problem an operator fixes with a setting; the message names both. */
export class SetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SetupError';
  }
}

/** How long a production entry waits for each server to answer at start. */
export const SERVER_CHECK_MS = 3_000;

/** The SetupError of a server (`variable`'s URL, password redacted) that does not answer at start. */
export function serverUnreachable(variable: string, url: string, cause: unknown): SetupError {
  const reason = cause instanceof Error ? cause.message || cause.name : String(cause);
  return new SetupError(`${variable} ${redact(url)} does not answer (${reason}); check ${variable} and that the server runs`);
}

const cleanups: (() => Promise<void> | void)[] = [];

/** Registers what a failed start must close before the process exits (run newest first). */
export function onStartupFailure(close: () => Promise<void> | void): void {
  cleanups.push(close);
}

async function runCleanups(): Promise<void> {
  const all = (async () => {
    for (const close of cleanups.splice(0).reverse())
      await Promise.resolve()
        .then(close)
        .catch(() => undefined);
  })();
  await Promise.race([all, new Promise((r) => setTimeout(r, CLEANUP_DEADLINE_MS).unref())]);
}

/** Runs the start-up of an entry point; a failure ends the process with one clear message. */
export async function startOrExit<T>(start: () => Promise<T>, log: (m: string) => void): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (err instanceof ConfigError || err instanceof SetupError) {
      log(err.message);
      await runCleanups();
      process.exit(EXIT_CONFIG);
    }
    log(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
    await runCleanups();
    process.exit(EXIT_STARTUP);
  }
}
