// Invariant: removing a test folder removes the embedded clusters made for DATA_DIRs inside it
// (relocated under the root home when the folder is private) and nothing outside that home.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_HOME } from '../shared/db/embedded-postgres-home.ts';
import { relocatedClusters, removeTestDir } from './support/test-dirs.ts';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe('removeTestDir', () => {
  it('removes the relocated cluster a DATA_DIR inside the folder names, and the folder', (ctx) => {
    if (!isRoot) return ctx.skip(); // only root relocates clusters (and may write the root home)
    const dir = mkdtempSync(join(tmpdir(), 'test-dirs-'));
    const dataDir = join(dir, 'a', 'data');
    mkdirSync(dataDir, { recursive: true });
    const cluster = join(ROOT_HOME, 'clusters', `test-${randomBytes(6).toString('hex')}`, 'postgres');
    mkdirSync(cluster, { recursive: true });
    writeFileSync(join(cluster, 'PG_VERSION'), '18\n');
    writeFileSync(join(dataDir, 'postgres.location'), `${cluster}\n`);
    // A location outside the clusters folder is never followed.
    const outside = mkdtempSync(join(tmpdir(), 'test-dirs-outside-'));
    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'b', 'postgres.location'), `${join(outside, 'postgres')}\n`);

    expect(relocatedClusters(dir)).toEqual([join(cluster, '..')]);
    removeTestDir(dir);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(join(cluster, '..'))).toBe(false);
    expect(existsSync(outside)).toBe(true);
    removeTestDir(outside);
  });
});
