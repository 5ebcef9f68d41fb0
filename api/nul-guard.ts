// Invariant: no request whose decoded query string or JSON body holds the NUL character (U+0000),
// in a value or in a member name, reaches a route: it is answered 400 SML002 naming where the NUL
// is. Postgres cannot store NUL in text, so this keeps such input from ever becoming a 500. The
// check runs after the key, scope and rate limit (onRequest) and after body parsing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { constraintViolated } from '../shared/errors/domain-errors.ts';

const NUL = '\u0000';
const NUL_RULE = 'must not contain the NUL character (U+0000)';

/** Display form of a member name: NUL shown as `\u0000`, so the message itself holds none. */
const shown = (key: string): string => key.split(NUL).join('\\u0000');

/** Where a NUL is in the value (`data[0].url`, or a member name), or null when there is none. */
export function findNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path : null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findNul(item, `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const at = path === '' ? shown(key) : `${path}.${shown(key)}`;
      if (key.includes(NUL)) return `member name ${at}`;
      const found = findNul(item, at);
      if (found !== null) return found;
    }
  }
  return null;
}

export function checkNoNul(request: Pick<FastifyRequest, 'query' | 'body'>): void {
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (name.includes(NUL)) throw constraintViolated(`query parameter name ${shown(name)}: ${NUL_RULE}`);
    if (findNul(value, shown(name)) !== null) throw constraintViolated(`query parameter ${shown(name)}: ${NUL_RULE}`);
  }
  const inBody = findNul(request.body, '');
  if (inBody !== null) throw constraintViolated(`${inBody === '' ? 'body' : inBody}: ${NUL_RULE}`);
}

export function installNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => checkNoNul(request));
}
