// Invariant: the service's signature is the one the standardwebhooks package (the reference
// implementation receivers use) computes and verifies, for any id, time and body, multi-byte
// characters included.
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSecret } from './webhook-secret.ts';
import { webhookKey, webhookSignature } from './webhook-signature.ts';

describe('webhookSignature', () => {
  it('equals what standardwebhooks signs, and verifies with it', () => {
    const bodies = ['', '{}', '{"name":"Zoë ☃ 日本 🎉"}', `{"data":"${'x'.repeat(300_000)}"}`, randomBytes(5000).toString('latin1')];
    for (const body of bodies) {
      const secret = generateSecret();
      const id = `msg_${randomUUID()}`;
      const at = new Date(Math.floor(Date.now() / 1000) * 1000);
      const seconds = at.getTime() / 1000;
      const signature = webhookSignature(webhookKey(secret), id, seconds, body);
      expect(signature).toBe(new Webhook(secret).sign(id, at, body));
      const headers = { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': signature };
      expect(() => new Webhook(secret).verify(body, headers, { jsonParse: false })).not.toThrow();
      // Another secret's signature does not verify.
      expect(() => new Webhook(generateSecret()).verify(body, headers, { jsonParse: false })).toThrow(/signature/);
    }
  });
});
