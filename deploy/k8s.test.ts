// Invariant: deploy/k8s (the base) and deploy/k8s/overlays/fleet render with `kubectl kustomize`
// into objects that are valid Kubernetes objects (kubernetes-models' schemas at run time, and
// TypeScript's excess-property check against its types, so a misspelt field fails too) and a
// deployment that works as the service expects: every probe, port, selector and reference
// resolves (a Service's selector and target port, an autoscaler's target, a budget's selector,
// /readyz and /healthz on the role's own listener port), pods are non-root with a read-only root
// and DATA_DIR writable, stopping outlasts the drain, REDIRECT_WORKERS equals the CPU limit,
// metrics listen where Prometheus scrapes, every credential comes from the Secret, and every
// environment variable is one the role's configuration schema accepts, with a value it accepts.
// `checkDeployment` is also run on broken copies: each rule catches its own breach.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { apiSchema, commonSchema, dashboardSchema, ingestSchema, parseConfig, redirectorSchema } from '../shared/config/config.ts';

const ROOT = resolve(import.meta.dirname, '..');
const haveKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
mkdirSync(join(ROOT, '.tmp'), { recursive: true });

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML is walked as plain data
type Obj = any;

function render(dir: string): Obj[] {
  const text = execFileSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8' });
  return parseAllDocuments(text).map((d) => d.toJS() as Obj);
}

/** kind → the kubernetes-models class and its TypeScript interface (module, name). */
const MODELS: Record<string, { apiVersion: string; model: new (o: Obj) => { validate(): void }; type: [string, string] }> = {
  Deployment: { apiVersion: 'apps/v1', model: Deployment, type: ['kubernetes-models/apps/v1/Deployment', 'IDeployment'] },
  Job: { apiVersion: 'batch/v1', model: Job, type: ['kubernetes-models/batch/v1/Job', 'IJob'] },
  Service: { apiVersion: 'v1', model: Service, type: ['kubernetes-models/v1/Service', 'IService'] },
  ConfigMap: { apiVersion: 'v1', model: ConfigMap, type: ['kubernetes-models/v1/ConfigMap', 'IConfigMap'] },
  HorizontalPodAutoscaler: {
    apiVersion: 'autoscaling/v2',
    model: HorizontalPodAutoscaler,
    type: ['kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler', 'IHorizontalPodAutoscaler'],
  },
  PodDisruptionBudget: {
    apiVersion: 'policy/v1',
    model: PodDisruptionBudget,
    type: ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'],
  },
};

/** TypeScript's verdict on the objects typed as their interfaces: unknown fields, wrong types, bad enum values. */
function typeErrors(objects: Obj[]): string[] {
  const dir = mkdtempSync(join(ROOT, '.tmp', 'k8s-types-'));
  try {
    const kinds = [...new Set(objects.map((o) => o.kind as string))];
    const file = join(dir, 'manifests.ts');
    writeFileSync(
      file,
      [
        ...kinds.map((k) => `import type { ${MODELS[k]!.type[1]} } from '${MODELS[k]!.type[0]}';`),
        ...objects.map((o, i) => `export const o${i}: ${MODELS[o.kind]!.type[1]} = ${JSON.stringify(o)};`),
      ].join('\n'),
    );
    const program = ts.createProgram([file], {
      noEmit: true,
      strict: true,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
      types: [],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
      const o = objects[line - kinds.length];
      return `${o ? `${o.kind}/${o.metadata?.name}` : '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The roles: the image's command, the schema that parses its environment, the setting of its listener port. */
const ROLES = {
  api: { schema: apiSchema, port: 'API_PORT', metrics: true },
  redirector: { schema: redirectorSchema, port: 'REDIRECT_PORT', metrics: true },
  dashboard: { schema: dashboardSchema, port: 'DASHBOARD_PORT', metrics: false },
  ingest: { schema: ingestSchema, port: 'INGEST_HEALTH_PORT', metrics: true },
} as const satisfies Record<string, { schema: z.ZodObject; port: string; metrics: boolean }>;
const AUTOSCALED = ['api', 'redirector'];
/** The Secret the deployment reads every credential from, and the keys it may hold. */
const SECRET = 'shortlink-secrets';
const CREDENTIALS = ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'REDIS_URL', 'CLICKHOUSE_URL', 'WEBHOOK_SECRETS_KEY'];
/** Stand-ins for the Secret's values when an environment is parsed. */
const SECRET_SAMPLES: Record<string, string> = {
  DATABASE_URL: 'postgres://u:p@pgbouncer:6432/shortlink',
  DATABASE_DIRECT_URL: 'postgres://u:p@postgres:5432/shortlink',
  REDIS_URL: 'redis://:p@redis:6379',
  CLICKHOUSE_URL: 'http://u:p@clickhouse:8123',
  WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
};

/** CPU quantity in cores ("2", "1500m"). */
const cores = (q: string | number): number => (typeof q === 'number' ? q : q.endsWith('m') ? Number(q.slice(0, -1)) / 1000 : Number(q));
const matches = (selector: Record<string, string> = {}, labels: Record<string, string> = {}): boolean =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

/** The container's environment as the process sees it: ConfigMaps it loads, then its own entries. */
function environment(container: Obj, objects: Obj[], problems: string[], where: string): { values: Record<string, string>; fromSecret: Set<string> } {
  const values: Record<string, string> = {};
  const fromSecret = new Set<string>();
  for (const from of container.envFrom ?? []) {
    const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === from.configMapRef?.name);
    if (!cm) problems.push(`${where}: envFrom names no ConfigMap of the deployment (${JSON.stringify(from)})`);
    else Object.assign(values, cm.data);
  }
  for (const e of container.env ?? []) {
    if (e.valueFrom) {
      const ref = e.valueFrom.secretKeyRef;
      if (!ref || ref.name !== SECRET) problems.push(`${where}: ${e.name} comes from ${JSON.stringify(e.valueFrom)}, not the Secret ${SECRET}`);
      else if (ref.key !== e.name) problems.push(`${where}: ${e.name} reads the Secret's key ${ref.key}`);
      else {
        fromSecret.add(e.name);
        values[e.name] = SECRET_SAMPLES[e.name] ?? 'x';
      }
    } else values[e.name] = String(e.value);
  }
  return { values, fromSecret };
}

/** The named or numbered port of the container, as a number (undefined when it names none). */
const containerPort = (container: Obj, port: string | number): number | undefined =>
  typeof port === 'number'
    ? container.ports?.find((p: Obj) => p.containerPort === port)?.containerPort
    : container.ports?.find((p: Obj) => p.name === port)?.containerPort;

/** Every way the rendered deployment breaks what the service needs; [] when none. */
function checkDeployment(objects: Obj[]): string[] {
  const problems: string[] = [];
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const deployments = of('Deployment');
  expectNames(problems, 'Deployment', deployments, Object.keys(ROLES));
  expectNames(problems, 'Job', of('Job'), ['clickhouse-schema', 'postgres-migrate']);
  expectNames(problems, 'HorizontalPodAutoscaler', of('HorizontalPodAutoscaler'), AUTOSCALED);
  expectNames(problems, 'PodDisruptionBudget', of('PodDisruptionBudget'), Object.keys(ROLES));
  if (objects.some((o) => o.kind === 'Secret')) problems.push('a Secret is rendered: credentials never live in these files');
  for (const o of objects)
    if (!MODELS[o.kind] || MODELS[o.kind]!.apiVersion !== o.apiVersion) problems.push(`${o.kind}/${o.metadata?.name}: unexpected ${o.apiVersion} ${o.kind}`);

  const workloads = [...deployments, ...of('Job')];
  for (const w of workloads) {
    const where = `${w.kind}/${w.metadata.name}`;
    const pod = w.spec.template.spec;
    const containers: Obj[] = pod.containers ?? [];
    if (containers.length !== 1) problems.push(`${where}: ${containers.length} containers, expected 1`);
    const c = containers[0] ?? {};
    if (!/(^|\/)shortlink(:[\w.-]+)?$/.test(c.image ?? '')) problems.push(`${where}: image ${c.image} is not the shortlink image`);
    // Security: non-root, read-only root, DATA_DIR writable.
    if (pod.securityContext?.runAsNonRoot !== true || pod.securityContext?.runAsUser === 0) problems.push(`${where}: the pod may run as root`);
    if (c.securityContext?.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
    if (c.securityContext?.readOnlyRootFilesystem !== true) problems.push(`${where}: the root file system is writable`);
    for (const kind of ['requests', 'limits'])
      for (const r of ['cpu', 'memory']) if (c.resources?.[kind]?.[r] === undefined) problems.push(`${where}: no ${r} ${kind}`);
    const { values, fromSecret } = environment(c, objects, problems, where);
    const dataDir = values.DATA_DIR;
    const mount = (c.volumeMounts ?? []).find((m: Obj) => m.mountPath === dataDir);
    const volume = mount && (pod.volumes ?? []).find((v: Obj) => v.name === mount.name);
    if (!dataDir || !mount || mount.readOnly || !(volume?.emptyDir || volume?.persistentVolumeClaim))
      problems.push(`${where}: DATA_DIR (${dataDir}) is not a writable volume`);
    // Credentials: from the Secret, never written in.
    for (const name of CREDENTIALS) if (name in values && !fromSecret.has(name)) problems.push(`${where}: ${name} is not taken from the Secret`);
    for (const [name, value] of Object.entries(values))
      if (!fromSecret.has(name) && /:\/\/[^/@\s]*@|PASSWORD|SECRET/i.test(`${name}=${value}`))
        problems.push(`${where}: ${name} looks like a credential written in`);
    // The environment is the role's configuration, names and values.
    const role = w.kind === 'Deployment' ? ROLES[w.metadata.name as keyof typeof ROLES] : undefined;
    const schema: z.ZodObject = role?.schema ?? commonSchema;
    for (const name of Object.keys(values)) if (!(name in schema.shape)) problems.push(`${where}: ${name} is no setting of its configuration`);
    try {
      parseConfig(schema, values);
    } catch (err) {
      problems.push(`${where}: its environment does not parse: ${(err as Error).message}`);
    }
    if (w.kind === 'Job') {
      const target = w.metadata.name === 'postgres-migrate' ? 'postgres' : 'clickhouse';
      if (JSON.stringify(c.args) !== JSON.stringify(['migrate', target])) problems.push(`${where}: runs ${JSON.stringify(c.args)}, expected migrate ${target}`);
      continue;
    }
    if (!role) continue;
    const name = w.metadata.name as keyof typeof ROLES;
    if (JSON.stringify(c.args) !== JSON.stringify([name])) problems.push(`${where}: runs ${JSON.stringify(c.args)}, expected the image command ${name}`);
    const labels = w.spec.template.metadata?.labels ?? {};
    if (!matches(w.spec.selector?.matchLabels, labels)) problems.push(`${where}: its selector does not match its pods' labels`);
    // Probes: /readyz and /healthz on the role's listener port.
    const listen = Number(values[role.port] ?? (schema.shape[role.port] as z.ZodType).parse(undefined));
    if (containerPort(c, listen) === undefined) problems.push(`${where}: ${role.port}=${listen} is not a container port`);
    for (const [probe, path] of [
      ['readinessProbe', '/readyz'],
      ['livenessProbe', '/healthz'],
    ] as const) {
      const get = c[probe]?.httpGet;
      if (get?.path !== path) problems.push(`${where}: ${probe} asks ${get?.path}, not ${path}`);
      if (containerPort(c, get?.port) !== listen) problems.push(`${where}: ${probe} probes port ${get?.port}, not ${role.port} ${listen}`);
    }
    // Stopping: preStop wait, then SHUTDOWN_GRACE_MS of drain, within the grace period.
    const sleep = c.lifecycle?.preStop?.exec?.command;
    const wait = sleep?.[0] === 'sleep' && sleep.length === 2 ? Number(sleep[1]) : Number.NaN;
    if (!(wait > 0)) problems.push(`${where}: no preStop wait`);
    const drain = wait + Number(values.SHUTDOWN_GRACE_MS ?? 10_000) / 1000;
    if (!(pod.terminationGracePeriodSeconds > drain))
      problems.push(`${where}: terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} ≤ preStop + SHUTDOWN_GRACE_MS (${drain} s)`);
    if (name === 'redirector' && Number(values.REDIRECT_WORKERS) !== cores(c.resources?.limits?.cpu ?? Number.NaN))
      problems.push(`${where}: REDIRECT_WORKERS ${values.REDIRECT_WORKERS} ≠ CPU limit ${c.resources?.limits?.cpu}`);
    // Metrics where Prometheus scrapes: every interface, the pod's advertised port.
    if (role.metrics) {
      const annotations = w.spec.template.metadata?.annotations ?? {};
      if (values.METRICS_HOST !== '0.0.0.0') problems.push(`${where}: METRICS_HOST ${values.METRICS_HOST} is not reachable by a scraper`);
      const port = Number(values.METRICS_PORT ?? (schema.shape.METRICS_PORT as z.ZodType).parse(undefined));
      if (containerPort(c, 'metrics') !== port || annotations['prometheus.io/port'] !== String(port) || annotations['prometheus.io/scrape'] !== 'true')
        problems.push(`${where}: METRICS_PORT ${port} is not the advertised metrics port`);
    }
    if (AUTOSCALED.includes(name) && w.spec.replicas !== undefined) problems.push(`${where}: sets replicas, which its autoscaler owns`);
  }

  const podsOf = (selector: Record<string, string>) => deployments.filter((d) => matches(selector, d.spec.template.metadata?.labels));
  for (const s of of('Service')) {
    const pods = podsOf(s.spec.selector);
    if (pods.length !== 1) problems.push(`Service/${s.metadata.name}: its selector matches ${pods.length} Deployments`);
    for (const p of s.spec.ports ?? [])
      if (pods[0] && containerPort(pods[0].spec.template.spec.containers[0], p.targetPort ?? p.port) === undefined)
        problems.push(`Service/${s.metadata.name}: targetPort ${p.targetPort} is no port of ${pods[0].metadata.name}`);
  }
  expectNames(problems, 'Service', of('Service'), ['api', 'dashboard', 'redirector']);
  for (const h of of('HorizontalPodAutoscaler')) {
    const ref = h.spec.scaleTargetRef;
    if (ref.kind !== 'Deployment' || !deployments.some((d) => d.metadata.name === ref.name))
      problems.push(`HorizontalPodAutoscaler/${h.metadata.name}: targets no Deployment (${ref.kind}/${ref.name})`);
    if (!(h.spec.minReplicas >= 2)) problems.push(`HorizontalPodAutoscaler/${h.metadata.name}: fewer than 2 replicas`);
  }
  for (const b of of('PodDisruptionBudget')) {
    const pods = podsOf(b.spec.selector?.matchLabels);
    if (pods.length !== 1 || pods[0]!.metadata.name !== b.metadata.name)
      problems.push(`PodDisruptionBudget/${b.metadata.name}: its selector matches ${pods.map((p) => p.metadata.name)}`);
  }
  return problems;
}

function expectNames(problems: string[], kind: string, objects: Obj[], names: string[]): void {
  const got = objects.map((o) => o.metadata.name).sort();
  if (JSON.stringify(got) !== JSON.stringify([...names].sort())) problems.push(`${kind}: ${got.join(', ')}; expected ${names.join(', ')}`);
}

describe('deploy/k8s', () => {
  it('kubectl (with kustomize built in) is installed in CI', () => {
    if (process.env.CI) expect(haveKubectl).toBe(true);
  });

  describe.skipIf(!haveKubectl).each([
    ['the base (kubectl kustomize deploy/k8s)', 'deploy/k8s'],
    ['the fleet overlay (deploy/k8s/overlays/fleet)', 'deploy/k8s/overlays/fleet'],
  ])('%s', (_name, dir) => {
    const objects = haveKubectl ? render(dir) : [];

    it('renders objects valid against the Kubernetes schemas', () => {
      expect(objects.length).toBeGreaterThan(10);
      for (const o of objects) {
        const model = MODELS[o.kind];
        expect(model, `${o.kind} has a schema here`).toBeDefined();
        expect(() => new model!.model(o).validate(), `${o.kind}/${o.metadata.name}`).not.toThrow();
      }
    });

    it('has no field the Kubernetes types do not know (TypeScript’s check of every object)', () => {
      expect(typeErrors(objects)).toEqual([]);
    }, 60_000);

    it('resolves every probe, port, selector and reference, and keeps every rule of the deployment', () => {
      expect(checkDeployment(objects)).toEqual([]);
    });
  });

  describe.skipIf(!haveKubectl)('each rule catches its own breach', () => {
    const base = haveKubectl ? render('deploy/k8s') : [];
    const broken = (change: (objects: Obj[]) => void): string[] => {
      const copy = structuredClone(base);
      change(copy);
      return checkDeployment(copy);
    };
    const find = (objects: Obj[], kind: string, name: string): Obj => objects.find((o) => o.kind === kind && o.metadata.name === name);
    const container = (objects: Obj[], name: string): Obj => find(objects, 'Deployment', name).spec.template.spec.containers[0];

    it.each([
      [
        'a readiness probe on another path',
        (o: Obj[]) => (container(o, 'api').readinessProbe.httpGet.path = '/ready'),
        /readinessProbe asks \/ready, not \/readyz/,
      ],
      [
        'a liveness probe on the metrics port',
        (o: Obj[]) => (container(o, 'ingest').livenessProbe.httpGet.port = 'metrics'),
        /livenessProbe probes port metrics/,
      ],
      [
        'a listener port the container does not expose',
        (o: Obj[]) => (container(o, 'redirector').env.find((e: Obj) => e.name === 'REDIRECT_PORT').value = '9090'),
        /REDIRECT_PORT=9090 is not a container port/,
      ],
      [
        'a Service selector with a typo',
        (o: Obj[]) => (find(o, 'Service', 'redirector').spec.selector['app.kubernetes.io/component'] = 'redirectr'),
        /Service\/redirector: its selector matches 0/,
      ],
      ['a Service target port the pods lack', (o: Obj[]) => (find(o, 'Service', 'api').spec.ports[0].targetPort = 'web'), /targetPort web is no port of api/],
      [
        'a Deployment selector that misses its pods',
        (o: Obj[]) => (find(o, 'Deployment', 'dashboard').spec.selector.matchLabels['app.kubernetes.io/component'] = 'ui'),
        /dashboard: its selector does not match/,
      ],
      ['an autoscaler aimed at nothing', (o: Obj[]) => (find(o, 'HorizontalPodAutoscaler', 'api').spec.scaleTargetRef.name = 'apis'), /targets no Deployment/],
      [
        'a budget over two roles',
        (o: Obj[]) => delete find(o, 'PodDisruptionBudget', 'ingest').spec.selector.matchLabels['app.kubernetes.io/component'],
        /PodDisruptionBudget\/ingest: its selector matches/,
      ],
      [
        'a grace period shorter than the drain',
        (o: Obj[]) => (find(o, 'Deployment', 'api').spec.template.spec.terminationGracePeriodSeconds = 15),
        /terminationGracePeriodSeconds 15 ≤/,
      ],
      ['no preStop wait', (o: Obj[]) => delete container(o, 'redirector').lifecycle, /redirector: no preStop wait/],
      ['more workers than cores', (o: Obj[]) => (container(o, 'redirector').resources.limits.cpu = '1500m'), /REDIRECT_WORKERS 2 ≠ CPU limit 1500m/],
      [
        'a root pod',
        (o: Obj[]) => (find(o, 'Job', 'postgres-migrate').spec.template.spec.securityContext.runAsNonRoot = false),
        /postgres-migrate: the pod may run as root/,
      ],
      ['a writable root', (o: Obj[]) => (container(o, 'ingest').securityContext.readOnlyRootFilesystem = false), /ingest: the root file system is writable/],
      [
        'DATA_DIR off its volume',
        (o: Obj[]) => (container(o, 'api').env.find((e: Obj) => e.name === 'DATA_DIR').value = '/var/lib/shortlink'),
        /api: DATA_DIR \(\/var\/lib\/shortlink\) is not a writable volume/,
      ],
      [
        'metrics on loopback',
        (o: Obj[]) => container(o, 'api').env.push({ name: 'METRICS_HOST', value: '127.0.0.1' }),
        /METRICS_HOST 127\.0\.0\.1 is not reachable/,
      ],
      [
        'a credential written in',
        (o: Obj[]) => (container(o, 'api').env.find((e: Obj) => e.name === 'DATABASE_URL').valueFrom = undefined),
        /DATABASE_URL is not taken from the Secret/,
      ],
      [
        'a setting the role does not have',
        (o: Obj[]) => container(o, 'redirector').env.push({ name: 'API_PORT', value: '3000' }),
        /redirector: API_PORT is no setting/,
      ],
      ['an unknown setting', (o: Obj[]) => container(o, 'dashboard').env.push({ name: 'DASHBORD_PORT', value: '3001' }), /DASHBORD_PORT is no setting/],
      [
        'a value the configuration refuses',
        (o: Obj[]) => (container(o, 'redirector').env.find((e: Obj) => e.name === 'REDIRECT_WORKERS').value = 'two'),
        /redirector: its environment does not parse/,
      ],
      [
        'no memory limit',
        (o: Obj[]) => delete find(o, 'Job', 'clickhouse-schema').spec.template.spec.containers[0].resources.limits.memory,
        /clickhouse-schema: no memory limits/,
      ],
    ])('%s', (_name, change, message) => {
      expect(broken(change)).toContainEqual(expect.stringMatching(message));
    });

    it('a misspelt field fails the type check', () => {
      const copy = structuredClone(base);
      const c = container(copy, 'api');
      c.readinesProbe = c.readinessProbe;
      delete c.readinessProbe;
      expect(typeErrors(copy)).toContainEqual(expect.stringMatching(/Deployment\/api: .*'"readinesProbe"' does not exist/));
    }, 60_000);
  });

  describe.skipIf(!haveKubectl)('the fleet overlay', () => {
    const fleet = haveKubectl ? render('deploy/k8s/overlays/fleet') : [];
    const config = fleet.find((o) => o.kind === 'ConfigMap')?.data ?? {};

    it('runs on a Redis Cluster (and no REDIS_URL anywhere), PgBouncer in transaction mode and a ClickHouse cluster with a quorum', () => {
      expect(config.REDIS_CLUSTER_NODES).toMatch(/^[\w.-]+:\d+(,[\w.-]+:\d+)+$/);
      expect(config.DATABASE_POOLER).toBe('transaction');
      expect(config.CLICKHOUSE_CLUSTER).toMatch(/^\w+$/);
      expect(Number(config.CLICKHOUSE_INSERT_QUORUM)).toBeGreaterThan(1);
      expect(JSON.stringify(fleet)).not.toContain('REDIS_URL');
      for (const d of fleet.filter((o) => o.kind === 'Deployment' || o.kind === 'Job'))
        expect(d.spec.template.spec.containers[0].envFrom, d.metadata.name).toEqual([
          { configMapRef: { name: fleet.find((o) => o.kind === 'ConfigMap').metadata.name } },
        ]);
    });

    it('sizes the redirector at 4 cores with 4 workers', () => {
      const c = fleet.find((o) => o.kind === 'Deployment' && o.metadata.name === 'redirector').spec.template.spec.containers[0];
      expect(c.resources.limits.cpu).toBe('4');
      expect(c.env.find((e: Obj) => e.name === 'REDIRECT_WORKERS').value).toBe('4');
    });
  });
});
