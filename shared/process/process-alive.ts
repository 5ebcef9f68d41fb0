// Invariant: one answer to "does this pid still run?" for every pid lock (DATA_DIR's, the spool
// slots'): signal 0 reaches it, or it runs under another user (EPERM).
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
