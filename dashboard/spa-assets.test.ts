import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSpaBuilt, SPA_DIST, sourceStamp } from './spa-assets.ts';

describe('the built SPA (made by the test run’s global setup under NODE_ENV=test)', () => {
  it('is a production build of the current sources, with no inline script and no source map', () => {
    expect(isSpaBuilt()).toBe(true);
    expect(readFileSync(join(SPA_DIST, '.source-stamp'), 'utf8')).toBe(sourceStamp());
    const html = readFileSync(join(SPA_DIST, 'index.html'), 'utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const files = readdirSync(join(SPA_DIST, 'assets'));
    expect(files.some((f) => f.endsWith('.map'))).toBe(false);
    const js = files.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(SPA_DIST, 'assets', f), 'utf8'));
    expect(js.length).toBeGreaterThan(0);
    for (const code of js) expect(code).not.toMatch(/jsxDEV|react-dom\.development/);
  });
});
