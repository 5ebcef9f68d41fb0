// Invariant: a file spool directory has one writer. A process claims the first free
// `<base>/slot-<n>` by creating its `.lock` directory (atomic mkdir) with its pid inside; a lock
// whose pid is no longer alive is taken over, so a restarted worker adopts (and backfills) what
// a crashed one spooled. release() removes the lock.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isProcessAlive } from '../../process/process-alive.ts';
import { join } from 'node:path';

export interface ClaimedDirectory {
  dir: string;
  release(): void;
}

export function claimSpoolDirectory(base: string, maxSlots = 1024): ClaimedDirectory {
  mkdirSync(base, { recursive: true });
  for (let slot = 0; slot < maxSlots; slot++) {
    const dir = join(base, `slot-${slot}`);
    const lock = join(dir, '.lock');
    mkdirSync(dir, { recursive: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        mkdirSync(lock);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        let owner = NaN;
        try {
          owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
        } catch {
          /* being written by its owner right now */
        }
        if (Number.isInteger(owner) && owner !== process.pid && !isProcessAlive(owner)) {
          rmSync(lock, { recursive: true, force: true }); // its owner is gone: take it over
          continue;
        }
        break;
      }
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return { dir, release: () => rmSync(lock, { recursive: true, force: true }) };
    }
  }
  throw new Error(`no free spool slot under ${base} (every one of ${maxSlots} is held by a live process)`);
}
