// Invariant: one running `npm start` per DATA_DIR. It holds DATA_DIR/.lock, a file created
// exclusively (O_EXCL) with its pid inside, until it stops. A lock whose pid no longer runs (a
// crash, a kill -9) is stale and taken over; a live one stops the second process with a
// SetupError naming DATA_DIR, before it touches the embedded Postgres or chDB.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { isProcessAlive } from '../process/process-alive.ts';
import { join, resolve } from 'node:path';
import { SetupError } from './startup.ts';

export interface DataDirLock {
  path: string;
  release(): void;
}

function holder(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      let released = false;
      return {
        path,
        release: () => {
          if (released) return;
          released = true;
          if (holder(path) === process.pid) unlinkSync(path);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = holder(path);
    if (pid !== null && pid !== process.pid && isProcessAlive(pid)) {
      throw new SetupError(`DATA_DIR ${resolve(dataDir)} is in use by another shortlink process (pid ${pid}); stop it, or set DATA_DIR to another folder`);
    }
    // Stale (its process is gone): take it over; a racing taker makes the next attempt see it live.
    try {
      unlinkSync(path);
    } catch {
      /* removed by a racing taker */
    }
  }
  throw new SetupError(`DATA_DIR ${resolve(dataDir)} is being locked by another shortlink process; stop it, or set DATA_DIR to another folder`);
}
