// Invariant: against the real booted service, preview fetching after saves is bounded: a bulk
// save of 30 new URLs never has more than PREVIEW_FETCH_CONCURRENCY (default 4) connections open
// to destinations at once (counted at the destination as requests being answered: a connection's
// close reaches the server only after the fetcher has freed its slot, so counting sockets until
// 'close' would see the next fetch's socket first), leaves none open afterwards, another organisation's single save is fetched before that bulk is
// through, and the bulk request still costs one crud token. Destinations are a local HTTP
// server that counts the requests it is answering and its open sockets (PREVIEW_ALLOW_PRIVATE lets the fetcher reach it).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootApi, type ApiFixture } from '../support/api-fixture.ts';
import { until } from '../support/http-request.ts';

const ANSWER_AFTER_MS = 1_000;
let fx: ApiFixture;
let destination: Server;
let base: string;
let inFlight = 0;
let maxOpen = 0;
let sockets = 0;
const requested: string[] = [];

beforeAll(async () => {
  destination = createServer((req, res) => {
    requested.push(req.url ?? '');
    inFlight++;
    maxOpen = Math.max(maxOpen, inFlight);
    res.on('finish', () => inFlight--);
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(`<head><title>${req.url}</title></head>`), ANSWER_AFTER_MS);
  });
  destination.on('connection', (socket) => {
    sockets++;
    socket.on('close', () => sockets--);
  });
  await new Promise<void>((r) => destination.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
  // Default concurrency; the per-host rate is lifted so that only the concurrency bound shapes this run.
  fx = await bootApi({ PREVIEW_ALLOW_PRIVATE: 'true', PREVIEW_FETCHES_PER_HOST_PER_MIN: '60000' });
}, 120_000);

afterAll(async () => {
  await fx?.close();
  destination?.closeAllConnections();
  await new Promise((r) => destination?.close(r));
});

describe('preview fetching after saves', () => {
  it('a bulk save of 30 new URLs opens at most 4 destination connections at once, costs one crud token, and does not starve another organisation', async () => {
    const bulkOrg = await fx.org('BUSINESS', { limits: ['--crud-per-min', '2'] });
    const singleOrg = await fx.org('BUSINESS');
    const urls = Array.from({ length: 30 }, (_, i) => `${base}/bulk-${i}`);

    const bulk = await bulkOrg.client.bulk<{ bulkSaveSummary: { successCount: number } }>({ data: urls.map((url) => ({ url })) });
    expect(bulk.status).toBe(200);
    expect(bulk.body.response?.bulkSaveSummary.successCount).toBe(30);
    expect((await singleOrg.client.save({ url: `${base}/single` })).status).toBe(200);
    const startedBeforeSingle = requested.length; // bulk fetches already under way when the single save was queued

    // 30 records, one token: the limit of 2 a minute leaves exactly one more request.
    expect((await bulkOrg.client.list()).status).toBe(200);
    const limited = await bulkOrg.client.list();
    expect(limited.status).toBe(429);
    expect(limited.body.errors?.[0]?.code).toBe('SML005');

    await until(() => requested.length === 31, 30_000);
    await until(async () => {
      const [row] = await fx.db.sql<{ n: number }[]>`select count(*)::int as n from destination_previews where title is not null`;
      return row?.n === 31;
    }, 10_000);
    const single = requested.indexOf('/single');
    console.log(
      `31 previews fetched; at most ${maxOpen} destination requests open at once; the single save was request #${single + 1}, ` +
        `${startedBeforeSingle} bulk fetches having started before it was saved`,
    );
    expect(maxOpen).toBeLessThanOrEqual(4);
    await until(() => sockets === 0, 10_000); // every fetch's connection is closed, none kept or leaked
    expect(maxOpen).toBeGreaterThanOrEqual(2); // fetches do overlap: the bound is what held them
    // Fair: the other organisation's URL took the next free slot instead of waiting behind the rest
    // of the bulk (at most the 4 fetches already dispatched may reach the server after the save).
    expect(single).toBeGreaterThanOrEqual(startedBeforeSingle);
    expect(single - startedBeforeSingle).toBeLessThanOrEqual(4);
    expect(30 - startedBeforeSingle).toBeGreaterThan(8); // enough of the bulk was still waiting for this to mean something
  }, 90_000);
});
