// Invariant: a file spool directory has one writer. A process claims the first free
// `<base>/slot-<n>` by taking the kernel-held lock on its `.owner` file (file-lock.ts), which it
// keeps until release() or its death; a slot whose holder died is free at once, so a restarted
// process adopts (and backfills) what a crashed one spooled, and a live holder is never
// displaced, whatever pids the processes have (containers often all run as pid 1).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tryLockFile } from '../../process/file-lock.ts';

export interface ClaimedDirectory {
  dir: string;
  release(): void;
}

export function claimSpoolDirectory(base: string, maxSlots = 1024): ClaimedDirectory {
  mkdirSync(base, { recursive: true });
  for (let slot = 0; slot < maxSlots; slot++) {
    const dir = join(base, `slot-${slot}`);
    mkdirSync(dir, { recursive: true });
    const lock = tryLockFile(join(dir, '.owner'));
    if (lock) return { dir, release: lock.release };
  }
  throw new Error(`no free spool slot under ${base} (every one of ${maxSlots} is held by a live process)`);
}
