// Invariant: tests talk to the redirector over real HTTP with node:http (fetch cannot set Host),
// one connection per request, redirects never followed. A request is a person's (a browser's
// User-Agent) unless its headers name another: bots count toward neither maxClicks nor quotas.
import { type Agent, request as httpRequest } from 'node:http';

/** The User-Agent a request carries unless its headers give one (an empty one included). */
export const PERSON_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

export function send(
  port: number,
  path: string,
  options: { method?: string; host?: string; headers?: Record<string, string>; timeoutMs?: number; body?: string | Buffer; agent?: Agent } = {},
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        agent: options.agent ?? false,
        headers: { host: options.host ?? 'localhost:8080', 'user-agent': PERSON_USER_AGENT, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
          // Set-Cookie is a list; its entries joined by newlines.
          const cookies = res.headers['set-cookie'];
          if (cookies !== undefined) headers['set-cookie'] = cookies.join('\n');
          resolve({ status: res.statusCode ?? 0, headers, body, text: body.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error(`timeout ${path}`)));
    req.end(options.body);
  });
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, stepMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
