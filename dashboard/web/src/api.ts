// Invariant: the SPA's only way to the server: a typed call per route of the contract (types from
// the server's own zod schemas), JSON in and out, the session's CSRF token on every state-changing
// request. A 401 AU001 on any call goes to sign-in (and back to where the user was afterwards).
import { type ParamsOf, pathOf, ROUTES, type RouteName } from '../../contract/routes.ts';
import type { BodyOf, ResponseOf } from '../../contract/schemas.ts';

export interface ErrorObject {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ErrorObject[],
  ) {
    super(errors.map((e) => e.message).join('; ') || `HTTP ${status}`);
  }

  get code(): string | undefined {
    return this.errors[0]?.code;
  }

  /** Messages by field (details.field, else the `field: ` prefix of the message); `''` for the rest. */
  byField(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.errors) {
      const prefix = /^([A-Za-z0-9_.[\]]+): (.*)$/.exec(e.message);
      const field = typeof e.details?.field === 'string' ? e.details.field : (prefix?.[1] ?? '');
      const text = prefix && prefix[1] === field ? (prefix[2] ?? e.message) : e.message;
      out[field] = out[field] ? `${out[field]}; ${text}` : text;
    }
    return out;
  }
}

let csrfToken = '';
let onSignInRequired: (() => void) | null = null;

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export function setSignInHandler(handler: () => void): void {
  onSignInRequired = handler;
}

/** Calls that answer 401 as part of what they do (no redirect to sign-in). */
const QUIET = new Set<RouteName>(['session', 'signIn', 'secondFactor', 'inviteAccept', 'inviteLookup', 'signUp']);

export interface CallInput<K extends RouteName> {
  body?: BodyOf<K>;
  params?: ParamsOf<K>;
  query?: Record<string, string | number | undefined>;
}

/** The request's URL: the route's path with its parameters, then the query's non-empty values. */
function urlOf<K extends RouteName>(name: K, params: ParamsOf<K> | undefined, query: Record<string, string | number | undefined> = {}): string {
  const path = pathOf(ROUTES[name][1], params ?? {});
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

export async function call<K extends RouteName>(name: K, input: CallInput<K> = {}): Promise<ResponseOf<K>> {
  const [method] = ROUTES[name];
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') {
    headers['content-type'] = 'application/json';
    headers['x-csrf-token'] = csrfToken;
  }
  const response = await fetch(urlOf(name, input.params, input.query), {
    method,
    headers,
    credentials: 'same-origin',
    body: method === 'GET' ? undefined : JSON.stringify(input.body ?? {}),
  });
  const text = await response.text();
  let parsed: { errors?: ErrorObject[] } & Record<string, unknown> = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = { errors: [{ code: 'SML001', message: `The server answered ${response.status}` }] };
  }
  if (!response.ok) {
    const error = new ApiError(response.status, parsed.errors ?? [{ code: 'SML001', message: `The server answered ${response.status}` }]);
    if (error.code === 'AU001' && !QUIET.has(name)) onSignInRequired?.();
    throw error;
  }
  return parsed as ResponseOf<K>;
}
