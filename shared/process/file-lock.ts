// Invariant: a lock on a file that the kernel holds for the process that took it and releases when
// that process dies however it dies (an open-file-description lock: fcntl F_OFD_SETLK on Linux,
// through fs-native-extensions), so no pid is ever compared: a process in another container
// with the same pid cannot be mistaken for the holder, and a crashed holder's lock is free at
// once. Two opens of one file in one process are two holders, so a process can never take its
// own lock twice either. The file keeps the holder's pid as text, for messages only.
import { closeSync, openSync, readFileSync, writeFileSync, ftruncateSync } from 'node:fs';
import { tryLock, unlock } from 'fs-native-extensions';

export interface FileLock {
  readonly path: string;
  /** Unlocks and closes; the file stays. */
  release(): void;
}

/** Locks `path` (created if missing) unless another process or open holds it; null then. */
export function tryLockFile(path: string): FileLock | null {
  const fd = openSync(path, 'a+');
  let locked = false;
  try {
    locked = tryLock(fd);
    if (!locked) return null;
    ftruncateSync(fd, 0);
    writeFileSync(fd, `${process.pid}\n`);
  } finally {
    if (!locked) closeSync(fd);
  }
  let released = false;
  return {
    path,
    release: () => {
      if (released) return;
      released = true;
      unlock(fd);
      closeSync(fd);
    },
  };
}

/** The pid the holder wrote into `path`, for a message; null when unreadable. */
export function lockHolderPid(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
