// Invariant: a message's Standard Webhooks v1 signature, `v1,` + base64 of HMAC-SHA256 over the
// UTF-8 bytes of `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the bytes the endpoint's
// secret names (`whsec_` + base64). node:crypto computes it over the body as it is: the
// standardwebhooks package (the test suites' verifier) hashes in JavaScript after copying the
// body twice, which cost the delivery worker a quarter of its CPU (bench/README, webhooks).
import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key an endpoint secret names. */
export function webhookKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** The `webhook-signature` entry of one key for the message `id` sent at `timestampSeconds`. */
export function webhookSignature(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`;
}
