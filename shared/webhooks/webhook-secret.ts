// Invariant: a webhook secret is `whsec_` + base64 of 32 random bytes, the Standard Webhooks form
// the standardwebhooks package signs with. It must stay usable for signing, so it cannot be kept
// only as a hash: with a key (WEBHOOK_SECRETS_KEY) it is sealed with AES-256-GCM
// (`sealed:v1:<iv>.<tag>.<ciphertext>`, base64), else stored as is. openSecret reads both, so a
// key set later seals the secrets made (or rotated) from then on.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const SEALED = 'sealed:v1:';

export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function sealSecret(secret: string, key: Buffer | undefined): string {
  if (key === undefined) return secret;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${SEALED}${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${body.toString('base64')}`;
}

export class SecretKeyMissingError extends Error {
  constructor() {
    super('a webhook secret is sealed but WEBHOOK_SECRETS_KEY is not set (or is another key): set the key the secrets were sealed with');
  }
}

export function openSecret(stored: string, key: Buffer | undefined): string {
  if (!stored.startsWith(SEALED)) return stored;
  if (key === undefined) throw new SecretKeyMissingError();
  const [iv, tag, body] = stored.slice(SEALED.length).split('.') as [string, string, string];
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretKeyMissingError();
  }
}

export const lastFour = (secret: string): string => secret.slice(-4);
