import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from './app-error.ts';
import { ERROR_CATALOG, ERROR_CODES } from './error-catalog.ts';
import { errorTableMarkdown } from './error-table-markdown.ts';

describe('error catalog', () => {
  it('holds every code of the spec with its status', () => {
    expect(Object.fromEntries(ERROR_CODES.map((c) => [c, ERROR_CATALOG[c].status]))).toEqual({
      SML001: 500,
      SML002: 400,
      SML003: 401,
      SML004: 409,
      SML005: 429,
      SML006: 503,
      SML010: 403,
      VE001: 400,
      DL001: 400,
      QE001: 402,
      QE002: 402,
      FE001: 402,
      EN001: 404,
      EN002: 410,
      EN003: 410,
      SML011: 401,
      AU001: 401,
      AU002: 401,
      AU003: 400,
      AU004: 410,
      AU005: 403,
    });
  });

  it('is documented in docs/api.md, as generated (npm run docs)', () => {
    const readme = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    expect(readme).toContain(errorTableMarkdown());
    for (const code of ERROR_CODES) expect(readme).toContain(`\`${code}\``);
  });

  it('gives AppErrors the catalog status and an envelope object without stack', () => {
    const e = new AppError('EN002');
    expect(e.status).toBe(410);
    expect(e.toErrorObject()).toEqual({ code: 'EN002', message: 'Link is no longer active' });
  });
});
