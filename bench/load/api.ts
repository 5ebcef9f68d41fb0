// Invariant: the load kit's only way to the link API: one JSON request with the key, answered by
// the envelope's `response`, or an ApiError whose message is one line naming the status and the
// API's error code and message. A 429 is waited out (its Retry-After, at most MAX_RETRY_WAIT_S,
// at most MAX_RETRIES times in a row) rather than failing the run.

export interface Api {
  /** Base URL without /link/external/v1. */
  url: string;
  key: string;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const PREFIX = '/link/external/v1';
const MAX_RETRIES = 20;
const MAX_RETRY_WAIT_S = 60;
const TIMEOUT_MS = 30_000;

type Envelope<T> = { response?: T; errors?: { code?: string; message?: string }[] };

export async function callApi<T>(api: Api, method: 'GET' | 'POST', path: string, body?: unknown, onWait?: (seconds: number) => void): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let r: Response;
    try {
      r = await fetch(`${api.url}${PREFIX}${path}`, {
        method,
        headers: { 'x-api-key': api.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      throw new ApiError(`cannot reach the API at ${api.url}: ${e.cause?.code ?? e.cause?.message ?? e.message}`, 0);
    }
    const text = await r.text();
    let envelope: Envelope<T> = {};
    try {
      envelope = text === '' ? {} : (JSON.parse(text) as Envelope<T>);
    } catch {
      /* not JSON: reported below by status */
    }
    if (r.status === 429 && attempt < MAX_RETRIES) {
      const seconds = Math.min(MAX_RETRY_WAIT_S, Math.max(1, Number(r.headers.get('retry-after')) || 1));
      onWait?.(seconds);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      continue;
    }
    if (r.ok && envelope.response !== undefined) return envelope.response;
    const first = envelope.errors?.[0];
    const said = first ? ` ${first.code ?? ''} ${first.message ?? ''}`.trimEnd() : r.ok ? ' (no response member)' : '';
    throw new ApiError(`the API answered ${method} ${PREFIX}${path.split('?')[0]} with HTTP ${r.status}${said}`, r.status);
  }
}
