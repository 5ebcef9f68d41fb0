// Invariant: the documentation cannot drift from the code: the README's environment table names
// every configuration key the zod schemas accept (and nothing they don't), every relative link in
// the repository's Markdown points at a file that exists, and docs/api.md's generated endpoint
// reference is current (`npm run docs`), and docs/privacy.md's table names every stored event
// column.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiReferenceMarkdown } from '../api/api-reference-markdown.ts';
import { EVENT_FIELDS } from '../shared/analytics/events/event-schema.ts';
import * as config from '../shared/config/config.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every key of every zod object schema the config module exports. */
function configKeys(): string[] {
  const keys = new Set<string>();
  for (const value of Object.values(config)) {
    const shape = (value as { shape?: Record<string, unknown> } | undefined)?.shape;
    if (shape && typeof shape === 'object') for (const k of Object.keys(shape)) keys.add(k);
  }
  return [...keys].sort();
}

/** Backticked upper-case names in the first column of the README's environment table. */
function documentedKeys(): string[] {
  const readme = read('README.md');
  const start = readme.indexOf('## Environment variables');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const first = line.split('|')[1] ?? '';
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

function markdownFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name.startsWith('.') || e.name === 'data') return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

describe('documentation', () => {
  it('the README environment table lists exactly the configuration keys', () => {
    const keys = configKeys();
    expect(keys.length).toBeGreaterThan(10);
    expect(documentedKeys()).toEqual(keys);
  });

  it('every relative link in the Markdown files points at a file of the repository', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
        const path = resolve(dirname(file), target.split('#')[0]!);
        if (!path.startsWith(ROOT) || !existsSync(path)) broken.push(`${file.slice(ROOT.length + 1)} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README never points outside the repository', () => {
    const readme = read('README.md');
    expect(readme).not.toMatch(/link-service-api\.md|DECISIONS\.md|\.\.\/shared\//);
  });

  it('docs/api.md carries the current generated endpoint reference (npm run docs)', () => {
    expect(read('docs/api.md')).toContain(apiReferenceMarkdown());
  });

  it('docs/privacy.md names every column of the events table in its first column', () => {
    const named = new Set(
      read('docs/privacy.md')
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1])),
    );
    expect(
      Object.values(EVENT_FIELDS)
        .map((f) => f.column)
        .filter((c) => !named.has(c)),
    ).toEqual([]);
  });
});
