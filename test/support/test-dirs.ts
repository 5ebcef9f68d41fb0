// Invariant: a test folder is removed together with every embedded Postgres cluster a test made
// for a DATA_DIR inside it. Run as root from a private folder, such a cluster lives outside the
// folder (under the product's root home, named by the `postgres.location` file it left in the
// DATA_DIR); it is removed with the folder, and nothing outside that home is ever removed.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT_HOME } from '../../shared/db/embedded-postgres-home.ts';

const CLUSTERS = join(ROOT_HOME, 'clusters');

/** The relocated cluster folders (…/clusters/<key>) named by `postgres.location` files under `dir`. */
export function relocatedClusters(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name !== 'postgres.location') continue;
    const clusterDir = resolve(readFileSync(join(entry.parentPath, entry.name), 'utf8').trim());
    const key = dirname(clusterDir);
    const inside = relative(CLUSTERS, key);
    if (inside !== '' && !inside.startsWith('..') && !inside.includes('/')) found.push(key);
  }
  return found;
}

/** Removes `dir` and the relocated clusters of the DATA_DIRs inside it (stop their Postgres first). */
export function removeTestDir(dir: string | undefined): void {
  if (!dir) return;
  for (const cluster of relocatedClusters(dir)) rmSync(cluster, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
