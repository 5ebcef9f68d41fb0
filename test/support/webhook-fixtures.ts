// Invariant: TEST-ONLY. What the webhook suites share: an organisation per test, a signature-
// checking receiver per test (closed with the suite), a delivery worker with a short retry
// schedule over the suite's database, and loops that run it until a condition holds.
import type { Actor, LinkServiceDeps } from '../../shared/links/save-link.ts';
import type { Sql } from '../../shared/db/sql.ts';
import { createOrganization } from '../../shared/orgs/org-repository.ts';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../../shared/webhooks/delivery-worker.ts';
import type { WebhookSettings } from '../../shared/webhooks/webhook-repository.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

export const WEBHOOK_KEY = Buffer.alloc(32, 7);
/** WEBHOOK_ALLOW_PRIVATE on: http and loopback receivers. */
export const open: WebhookSettings = { allowPrivate: true, secretsKey: WEBHOOK_KEY };
/** The production address policy. */
export const strict: WebhookSettings = { allowPrivate: false, secretsKey: WEBHOOK_KEY };

export function webhookFixtures(db: () => Sql) {
  const receivers: WebhookReceiver[] = [];
  const fx = {
    deps: (): LinkServiceDeps => ({ sql: db(), shortLinkBase: 'https://sho.rt', now: Date.now }),
    actorOf: async (name: string): Promise<Actor> => ({
      org: await createOrganization(db(), { name, plan: 'BUSINESS' }),
      attribution: 'api-key:test',
      via: 'EXTERNAL',
    }),
    receiver: async (): Promise<WebhookReceiver> => {
      const r = await startWebhookReceiver();
      receivers.push(r);
      return r;
    },
    worker: (o: Partial<DeliveryWorkerOptions> = {}): DeliveryWorker =>
      new DeliveryWorker({ sql: db(), analytics: null, allowPrivate: true, secretsKey: WEBHOOK_KEY, retryScheduleMs: [50, 50, 50], timeoutMs: 2_000, ...o }),
    /** Runs rounds until `done` holds (or 10 s pass). */
    until: async (w: DeliveryWorker, done: () => boolean | Promise<boolean>): Promise<void> => {
      const deadline = Date.now() + 10_000;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error('condition not reached in 10 s');
        if ((await w.runOnce()) === 0) await new Promise((r) => setTimeout(r, 30));
      }
    },
    /** Polls `done` every 20 ms for up to 10 s. */
    waitFor: async (done: () => boolean): Promise<void> => {
      const deadline = Date.now() + 10_000;
      while (!done()) {
        if (Date.now() > deadline) throw new Error('condition not reached in 10 s');
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    statusOf: async (id: string): Promise<string> => {
      const [row] = await db()<{ status: string }[]>`select status from webhook_messages where id = ${id}`;
      return row?.status ?? 'missing';
    },
    closeReceivers: async (): Promise<void> => {
      for (const r of receivers.splice(0)) await r.close();
    },
  };
  return fx;
}
