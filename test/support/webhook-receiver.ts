// Invariant: the test receiver verifies every message it is sent with the standardwebhooks
// package (each secret it was given, as a receiver mid-rotation would), records each one
// (id, type, body, which secrets verified it), counts the attempts in flight per webhook-id (a
// message sent twice at once shows as maxInFlight > 1) and answers as `answer` says.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  /** The request's path (an endpoint URL per scenario tells them apart). */
  path: string;
  type: string;
  body: string;
  data: unknown;
  /** Indexes of the secrets that verified the signature. */
  verifiedBy: number[];
  at: number;
  /** When its answer was written (undefined until then). */
  answeredAt?: number;
}

export interface WebhookReceiver {
  url: string;
  server: Server;
  received: Received[];
  /** Messages whose signature no secret verified. */
  unverified: { id: string; error: string }[];
  secrets: string[];
  maxInFlight: number;
  answer: (req: IncomingMessage, res: ServerResponse, r: Received) => void | Promise<void>;
  /** Distinct webhook-ids received. */
  ids(): Set<string>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secrets: string[] = [], port = 0): Promise<WebhookReceiver> {
  const inFlight = new Map<string, number>();
  const receiver: WebhookReceiver = {
    url: '',
    server: undefined as unknown as Server,
    received: [],
    unverified: [],
    secrets,
    maxInFlight: 0,
    answer: (_req, res) => {
      res.writeHead(204).end();
    },
    ids: () => new Set(receiver.received.map((r) => r.id)),
    close: () => new Promise((resolve) => receiver.server.close(() => resolve())),
  };
  receiver.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id']);
      const n = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, n);
      receiver.maxInFlight = Math.max(receiver.maxInFlight, n);
      res.on('close', () => inFlight.set(id, (inFlight.get(id) ?? 1) - 1));
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      const verifiedBy: number[] = [];
      let lastError = 'no secret';
      for (const [i, s] of receiver.secrets.entries()) {
        try {
          new Webhook(s).verify(body, headers);
          verifiedBy.push(i);
        } catch (err) {
          lastError = (err as Error).message;
        }
      }
      if (verifiedBy.length === 0) receiver.unverified.push({ id, error: lastError });
      const parsed = JSON.parse(body) as { type: string; data: unknown };
      const r: Received = { id, path: req.url ?? '', type: parsed.type, body, data: parsed.data, verifiedBy, at: Date.now() };
      receiver.received.push(r);
      res.on('finish', () => {
        r.answeredAt = Date.now();
      });
      void receiver.answer(req, res, r);
    });
  });
  await new Promise<void>((resolve) => receiver.server.listen(port, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`;
  return receiver;
}
