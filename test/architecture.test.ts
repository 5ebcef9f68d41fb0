// Invariant: the architecture rules in .dependency-cruiser.cjs hold on the code base (no
// violation), and they bite: a probe tree that breaks each rule once gets exactly those
// violations, so a rule that silently stopped matching fails this test too.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

async function violations(cwd: string, config = '.dependency-cruiser.cjs'): Promise<Violation[]> {
  const args = [depcruise, '--config', config, '--output-type', 'json', 'api', 'redirector', 'ingest', 'dashboard', 'shared', 'bin'];
  const { stdout } = await run(process.execPath, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).catch((err: { stdout?: string }) => ({
    stdout: err.stdout ?? '',
  }));
  const result = JSON.parse(stdout) as { summary: { violations: Violation[] } };
  return result.summary.violations;
}

const probe = mkdtempSync(join(root, '.tmp', 'architecture-'));
afterAll(() => rmSync(probe, { recursive: true, force: true }));

function productFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !/\.(test|contract)\.ts$/.test(e.name))
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1));
}

describe('architecture: backends are chosen once', () => {
  it('no product module but the composition root reads a server URL setting', () => {
    const readers = ['api', 'redirector', 'ingest', 'dashboard', 'shared', 'bin']
      .flatMap(productFiles)
      .filter((f) => /\.(DATABASE_URL|REDIS_URL|CLICKHOUSE_URL)\b/.test(readFileSync(join(root, f), 'utf8')));
    expect(readers).toEqual(['shared/runtime/open-backends.ts']);
  });
});

describe('architecture (dependency-cruiser)', () => {
  it('the code base has no violation', async () => {
    expect(await violations(root)).toEqual([]);
    expect(await violations(root, '.dependency-cruiser.folders.cjs')).toEqual([]);
  }, 60_000);

  it('each rule catches its own breach in a probe tree', async () => {
    const files: Record<string, string> = {
      'api/routes.ts': "import { x } from '../redirector/server.ts';\nexport const y = x;\n",
      'redirector/server.ts': "import { bus } from '../shared/bus/redis-invalidation-bus.ts';\nexport const x = bus;\n",
      'ingest/main.ts': "import { helper } from '../test/support/helper.ts';\nexport const z = helper;\n",
      'shared/bus/redis-invalidation-bus.ts': 'export const bus = 1;\n',
      'shared/links/save.ts': "import { y } from '../../api/routes.ts';\nexport const s = y;\n",
      'shared/runtime/open-backends.ts': "import { bus } from '../bus/redis-invalidation-bus.ts';\nexport const b = bus;\n",
      'bin/start.ts': "import { b } from '../shared/runtime/open-backends.ts';\nexport const c = b;\n",
      // A capability that reaches up into the composition root's folder.
      'shared/previews/preview.ts': "import { b } from '../runtime/open-backends.ts';\nexport const p = b;\n",
      // A circle held only by type imports (as db/database ↔ db/migrate was).
      'shared/db/database.ts': "import type { M } from './migrate.ts';\nexport type D = { m?: M };\n",
      'shared/db/migrate.ts': "import type { D } from './database.ts';\nexport type M = { d?: D };\n",
      'test/support/helper.ts': "import { bus } from '../../shared/bus/redis-invalidation-bus.ts';\nexport const helper = bus;\n",
      // Two capability folders that need each other (as apps ↔ links, orgs ↔ keys and errors ↔ orgs did).
      'shared/cache/tier.ts': "import { limit } from '../limits/bucket.ts';\nexport const tier = limit;\n",
      'shared/limits/bucket.ts': "import type { T } from '../cache/types.ts';\nexport const limit = 1;\nexport type L = T;\n",
      'shared/cache/types.ts': 'export type T = number;\n',
      // A contract suite may use test support: a loop through test code is not a loop of capabilities.
      'shared/bus/bus.contract.ts':
        "import { helper } from '../../test/support/helper.ts';\nimport { bus } from './redis-invalidation-bus.ts';\nexport const t = [helper, bus];\n",
      'dashboard/routes.ts': "import { x } from '../api/routes.ts';\nexport const d = x;\n",
      'dashboard/contract/routes.ts': 'export const ROUTES = {};\n',
      'dashboard/web/src/api.ts': "import { ROUTES } from '../../contract/routes.ts';\nimport { d } from '../../routes.ts';\nexport const w = [ROUTES, d];\n",
      // The SPA may use a model module, not the rest of shared/.
      'dashboard/web/src/rules.ts':
        "import { isUuid } from '../../../shared/ids/model/uuid.ts';\nimport { s } from '../../../shared/links/save.ts';\nexport const r = [isUuid, s];\n",
      'shared/ids/model/uuid.ts': 'export const isUuid = (text: string): boolean => text.length === 36;\n',
      // A model module that is not browser-safe: a node: import and a server module of shared/.
      'shared/ids/model/leaky.ts':
        "import { createHash } from 'node:crypto';\nimport type { T } from '../../cache/types.ts';\nimport { isUuid } from './uuid.ts';\nexport const l: [unknown, T?, unknown?] = [createHash, undefined, isUuid];\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(probe, path)), { recursive: true });
      writeFileSync(join(probe, path), text);
    }
    copyFileSync(join(root, '.dependency-cruiser.cjs'), join(probe, '.dependency-cruiser.cjs'));
    copyFileSync(join(root, '.dependency-cruiser.folders.cjs'), join(probe, '.dependency-cruiser.folders.cjs'));
    copyFileSync(join(root, 'tsconfig.json'), join(probe, 'tsconfig.json'));
    symlinkSync(join(root, 'node_modules'), join(probe, 'node_modules'));
    const found = [...(await violations(probe)), ...(await violations(probe, '.dependency-cruiser.folders.cjs'))]
      .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
      .sort();
    expect(found).toEqual([
      'backends-chosen-once: redirector/server.ts -> shared/bus/redis-invalidation-bus.ts',
      'models-are-browser-safe: shared/ids/model/leaky.ts -> crypto',
      'models-are-browser-safe: shared/ids/model/leaky.ts -> shared/cache/types.ts',
      'no-circular-capabilities: shared/cache -> shared/limits',
      'no-circular-capabilities: shared/limits -> shared/cache',
      'no-circular: shared/db/database.ts -> shared/db/migrate.ts',
      'processes-import-only-shared: api/routes.ts -> redirector/server.ts',
      'processes-import-only-shared: dashboard/routes.ts -> api/routes.ts',
      'product-never-imports-tests: ingest/main.ts -> test/support/helper.ts',
      'runtime-is-the-top-of-shared: shared/previews/preview.ts -> shared/runtime/open-backends.ts',
      'shared-never-imports-processes: shared/links/save.ts -> api/routes.ts',
      'spa-imports-only-models-and-the-contract: dashboard/web/src/api.ts -> dashboard/routes.ts',
      'spa-imports-only-models-and-the-contract: dashboard/web/src/rules.ts -> shared/links/save.ts',
    ]);
  }, 60_000);
});
