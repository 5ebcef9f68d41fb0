// Invariant: SIGTERM and SIGINT run the registered closers once, in reverse order of
// registration (servers stop accepting before the stores they write to are closed), then exit.
// Signals are idempotent: a second SIGTERM or SIGINT (a process-group signal after the parent
// already relayed one, an impatient Ctrl-C) only logs that shutdown is under way; it never kills
// the process mid-flush.
export type Closer = () => Promise<void>;

export function onShutdown(closers: Closer[], log: (m: string) => void, exit: (code: number) => void = (c) => process.exit(c)): void {
  let closing = false;
  const run = async (signal: string) => {
    if (closing) {
      log(`${signal}: shutdown already under way`);
      return;
    }
    closing = true;
    log(`${signal}: shutting down`);
    let code = 0;
    for (const close of [...closers].reverse()) {
      try {
        await close();
      } catch (err) {
        code = 1;
        log(`shutdown step failed: ${(err as Error).message}`);
      }
    }
    exit(code);
  };
  process.on('SIGTERM', () => void run('SIGTERM'));
  process.on('SIGINT', () => void run('SIGINT'));
}
