// Invariant: every process logs through one pino JSON logger made here: one object per line on
// stderr (stdout stays free for what a command prints), at LOG_LEVEL, with the process role in
// `name`. Writes are synchronous, so a line logged just before exit is not lost. Modules receive
// the logger (or a child naming their role) and log a failure as `{ err }` with a short message,
// never a message they formatted from the error. Start-up failures are not logged here:
// startup.ts prints them as one human-readable line.
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export function createLogger(name: string, level: LogLevel, destination: pino.DestinationStream = pino.destination({ dest: 2, sync: true })): Logger {
  return pino({ name, level, base: { pid: process.pid } }, destination);
}

/** A logger that writes nothing (a module given no logger). */
export const silentLogger: Logger = pino({ level: 'silent' });
