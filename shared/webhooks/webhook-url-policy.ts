// Invariant: a webhook URL is saved only when it is https and every address its host resolves
// to passes the preview fetcher's address policy (isPublicAddress, the one policy); with
// WEBHOOK_ALLOW_PRIVATE (tests only) http and private addresses pass too. The same policy is
// checked again at every connection (webhook-sender.ts), so a host that rebinds later is refused
// then.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '../errors/app-error.ts';
import { isPublicAddress } from '../previews/address-policy.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

function refused(reason: string, message: string): AppError {
  return new AppError('VE001', message, { field: 'url', reason });
}

/** The URL, normalised, or a VE001 naming the field `url` and why. */
export async function checkWebhookUrl(input: string, o: { allowPrivate: boolean }): Promise<string> {
  let url: URL;
  try {
    if (input.length > MAX_WEBHOOK_URL_LENGTH) throw new Error('too long');
    url = new URL(input.trim());
  } catch {
    throw refused('INVALID_URL', `Webhook URL must be an absolute https URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  const schemes = o.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw refused('NOT_HTTPS', 'Webhook URL must use https');
  if (url.username !== '' || url.password !== '') throw refused('INVALID_URL', 'Webhook URL must not carry a user name or password');
  if (o.allowPrivate) return url.href;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw refused('UNRESOLVABLE', `Webhook URL host ${url.hostname} does not resolve`);
    }
  }
  const bad = addresses.find((a) => !isPublicAddress(a));
  if (bad !== undefined) throw refused('PRIVATE_ADDRESS', `Webhook URL host ${url.hostname} resolves to a private address (${bad})`);
  return url.href;
}
