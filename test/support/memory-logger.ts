// Invariant: TEST-ONLY: a real pino logger (the one the processes use, at debug) whose records
// are kept in memory, each rendered as `msg`, or `msg: err.message` when it carries an error, so
// a test reads what an operator reads.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../shared/log/logger.ts';

/** A logger whose records are appended to `lines` as they are logged. */
export function lineLogger(lines: string[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        const r = JSON.parse(line) as { msg?: unknown; err?: { message?: string } };
        lines.push(r.err?.message === undefined ? String(r.msg) : `${String(r.msg)}: ${r.err.message}`);
      }
      done();
    },
  });
  return createLogger('test', 'debug', sink);
}
