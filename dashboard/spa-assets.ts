// Invariant: the SPA is never committed built. Its build (dashboard/web/dist) carries a stamp of
// the sources it was built from (every file under dashboard/web/src, dashboard/contract, the
// index.html and the Vite config, and the lockfile); `npm install` (prepare), `npm start` and the
// test run's global setup build it only when that stamp differs, into a fresh folder renamed into
// place, so concurrent starters never see half a build. Production entries only check that it
// exists. Vite is loaded only to build.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const WEB_DIR = join(HERE, 'web');
export const SPA_DIST = join(WEB_DIR, 'dist');
const ROOT = join(HERE, '..');
const STAMP = '.source-stamp';
/** Always a production build (React's production runtime), whatever NODE_ENV the caller runs under (vitest sets 'test'). */
const BUILD_MODE = 'production';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** A hash of everything the SPA build depends on. */
export function sourceStamp(): string {
  const h = createHash('sha256').update(`${BUILD_MODE}\0`);
  const files = [
    ...filesUnder(join(WEB_DIR, 'src')),
    ...filesUnder(join(HERE, 'contract')),
    join(WEB_DIR, 'index.html'),
    join(WEB_DIR, 'vite.config.ts'),
    join(ROOT, 'package-lock.json'),
  ];
  for (const f of files) {
    if (!existsSync(f)) continue;
    h.update(relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

export function isSpaBuilt(dist = SPA_DIST): boolean {
  return existsSync(join(dist, 'index.html'));
}

function builtStamp(): string | null {
  try {
    return readFileSync(join(SPA_DIST, STAMP), 'utf8').trim();
  } catch {
    return null;
  }
}

/** Builds the SPA when its sources changed since the last build; returns whether it built. */
export async function ensureSpaBuilt(log: (m: string) => void = () => {}): Promise<boolean> {
  // Compiled code (dist/, the image) ships the build without its sources: nothing to build.
  if (!existsSync(join(WEB_DIR, 'src'))) return false;
  const stamp = sourceStamp();
  if (builtStamp() === stamp && isSpaBuilt()) return false;
  const t = Date.now();
  const out = `${SPA_DIST}.${process.pid}.${Date.now()}`;
  const { build } = await import('vite');
  // Vite takes the JSX runtime and React's build from NODE_ENV: pin it for the build's duration.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = BUILD_MODE;
  try {
    await build({ configFile: join(WEB_DIR, 'vite.config.ts'), mode: BUILD_MODE, logLevel: 'warn', build: { outDir: out, emptyOutDir: true } });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  writeFileSync(join(out, STAMP), stamp);
  mkdirSync(dirname(SPA_DIST), { recursive: true });
  const old = `${SPA_DIST}.old.${process.pid}.${Date.now()}`;
  try {
    if (existsSync(SPA_DIST)) renameSync(SPA_DIST, old);
    renameSync(out, SPA_DIST);
  } catch (err) {
    // Another starter put the same build in place meanwhile.
    rmSync(out, { recursive: true, force: true });
    if (builtStamp() !== stamp) throw err;
  }
  rmSync(old, { recursive: true, force: true });
  log(`dashboard built in ${Date.now() - t} ms`);
  return true;
}
