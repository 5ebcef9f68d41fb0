// Invariant: one running `npm start` per DATA_DIR. It holds the kernel-held lock on DATA_DIR/.lock
// (file-lock.ts) until it stops or dies, so a crashed or killed holder's lock is free at once and
// no pid is compared (a restarted container's process may have the dead one's pid). A held lock
// stops the second process with a SetupError naming DATA_DIR (and the holder's pid, as it wrote
// it), before it touches the embedded Postgres or chDB.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { lockHolderPid, tryLockFile, type FileLock } from '../process/file-lock.ts';
import { SetupError } from './startup.ts';

export type DataDirLock = FileLock;

export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, '.lock');
  const lock = tryLockFile(path);
  if (lock) return lock;
  const pid = lockHolderPid(path);
  throw new SetupError(
    `DATA_DIR ${resolve(dataDir)} is in use by another shortlink process${pid === null ? '' : ` (pid ${pid})`}; stop it, or set DATA_DIR to another folder`,
  );
}
