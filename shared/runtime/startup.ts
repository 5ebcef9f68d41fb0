// Invariant: a process that cannot start says so in one message and exits non-zero: a
// configuration problem (ConfigError: every problem listed, naming the setting) exits 2, anything
// else 1, and no stack trace is printed.
import { ConfigError } from '../config/config.ts';

export const EXIT_CONFIG = 2;
export const EXIT_STARTUP = 1;

/** Runs the start-up of an entry point; a failure ends the process with one clear message. */
export async function startOrExit<T>(start: () => Promise<T>, log: (m: string) => void): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (err instanceof ConfigError) {
      log(err.message);
      process.exit(EXIT_CONFIG);
    }
    log(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(EXIT_STARTUP);
  }
}
