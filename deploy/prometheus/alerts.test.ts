// Invariant: the shipped alert rules are valid Prometheus rules (`promtool check rules`), behave
// as their unit tests say (`promtool test rules`: each alert fires on an outage's series and not
// on a healthy one), and name only metrics the processes export. Without promtool the promtool
// checks are skipped, except in CI (.ci/run installs it), where its absence fails.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = import.meta.dirname;
const root = join(dir, '..', '..');
const havePromtool = spawnSync('which', ['promtool']).status === 0;

describe('deploy/prometheus/alerts.yml', () => {
  it('promtool is installed in CI', () => {
    if (process.env.CI) expect(havePromtool).toBe(true);
  });

  it.skipIf(!havePromtool)('passes promtool check rules and its rule unit tests', () => {
    const check = spawnSync('promtool', ['check', 'rules', 'alerts.yml'], { cwd: dir, encoding: 'utf8' });
    expect({ status: check.status, out: check.stdout + check.stderr }).toMatchObject({ status: 0 });
    const unit = spawnSync('promtool', ['test', 'rules', 'alerts.rules-test.yml'], { cwd: dir, encoding: 'utf8' });
    expect({ status: unit.status, out: unit.stdout + unit.stderr }).toMatchObject({ status: 0 });
  });

  it('names only metrics the code registers', () => {
    const rules = readFileSync(join(dir, 'alerts.yml'), 'utf8');
    const used = new Set([...rules.matchAll(/\b(shortlink_[a-z_]+)\b/g)].map((m) => m[1]!).filter((n) => !/^shortlink(_analytics)?$/.test(n)));
    const source = readFileSync(join(root, 'shared', 'runtime', 'prometheus-metrics.ts'), 'utf8');
    const exported = new Set([...source.matchAll(/'(shortlink_[a-z_]+)'/g)].map((m) => m[1]!));
    expect(used.size).toBeGreaterThanOrEqual(4);
    expect([...used].filter((n) => !exported.has(n))).toEqual([]);
  });
});
