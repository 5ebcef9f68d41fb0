// Invariant: a progress line is drawn only on a terminal (the stream's isTTY): one line rewritten
// in place (carriage return, text, clear to end of line), first drawn once the run has lasted
// delayMs (short runs print nothing), then at most once per intervalMs; clear() erases it (call it
// before writing a log line) and done() erases it for good. On a pipe, file or log collector it
// writes nothing at all, so logs stay line-based.

export interface ProgressLine {
  update(text: string): void;
  clear(): void;
  done(): void;
}

export interface ProgressLineOptions {
  stream?: Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean };
  delayMs?: number;
  intervalMs?: number;
  now?: () => number;
}

const NONE: ProgressLine = { update() {}, clear() {}, done() {} };

export function progressLine(o: ProgressLineOptions = {}): ProgressLine {
  const stream = o.stream ?? process.stderr;
  if (stream.isTTY !== true) return NONE;
  const delayMs = o.delayMs ?? 1_000;
  const intervalMs = o.intervalMs ?? 200;
  const now = o.now ?? Date.now;
  let startedAt: number | null = null;
  let drawnAt: number | null = null;
  let shown = false;
  const clear = (): void => {
    if (!shown) return;
    stream.write('\r\x1b[K');
    shown = false;
  };
  return {
    update(text) {
      const t = now();
      startedAt ??= t;
      if (t - startedAt < delayMs) return;
      if (drawnAt !== null && shown && t - drawnAt < intervalMs) return;
      stream.write(`\r${text.replace(/[\r\n]/g, ' ')}\x1b[K`);
      drawnAt = t;
      shown = true;
    },
    clear,
    done() {
      clear();
      startedAt = null;
      drawnAt = null;
    },
  };
}
