// Invariant: SIGTERM and SIGINT run the registered closers once, in reverse order of
// registration (servers stop accepting before the stores they write to are closed), then exit.
export type Closer = () => Promise<void>;

export function onShutdown(closers: Closer[], log: (m: string) => void, exit: (code: number) => void = (c) => process.exit(c)): void {
  let closing = false;
  const run = async (signal: string) => {
    if (closing) return;
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
  process.once('SIGTERM', () => void run('SIGTERM'));
  process.once('SIGINT', () => void run('SIGINT'));
}
