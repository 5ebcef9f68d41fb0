// The open-loop schedule and the latency histograms together, on a simulated clock: a server that
// answers in 0.5 ms, stalled for 1.5 s in the middle of a 2,000/s run, must show in the
// percentiles counted from the schedule, while the time from each send (what a closed-loop tool
// measures) hides it.
import { describe, expect, it } from 'vitest';
import { LatencyRecorder, summarize } from './latency.ts';
import { OpenLoop } from './schedule.ts';

interface Sim {
  rate: number;
  durationMs: number;
  connections: number;
  serviceMs: number;
  /** The server answers nothing in [from, to): what arrives or is in flight then is answered at `to` + serviceMs. */
  stall?: { fromMs: number; toMs: number };
  /** The generator's timer: with every connection idle, it wakes on this grid (ms). */
  timerMs: number;
}

/** Runs the real schedule and recorder against a simulated server, event by event. */
function simulate(s: Sim): LatencyRecorder {
  const loop = new OpenLoop(s.rate, s.durationMs, s.connections);
  const rec = new LatencyRecorder(1000);
  const doneAt = new Float64Array(s.connections).fill(Number.POSITIVE_INFINITY);
  const sentAt = new Float64Array(s.connections);
  const origin = new Float64Array(s.connections);
  const late = new Float64Array(s.connections);
  let now = 0;
  let nextClose = 1000;
  const answerAt = (sent: number): number => {
    const st = s.stall;
    if (st && sent + s.serviceMs > st.fromMs && sent < st.toMs) return st.toMs + s.serviceMs;
    return sent + s.serviceMs;
  };
  const send = (conn: number, _index: number, originMs: number, lateMs: number): void => {
    sentAt[conn] = now;
    origin[conn] = originMs;
    late[conn] = lateMs;
    doneAt[conn] = answerAt(now);
  };
  for (;;) {
    let nextDone = Number.POSITIVE_INFINITY;
    for (const t of doneAt) nextDone = Math.min(nextDone, t);
    const wait = loop.msUntilNext(now);
    // With a connection idle, the generator wakes at its next timer tick at or after the slot.
    const nextTick = wait === null || loop.idle === 0 ? Number.POSITIVE_INFINITY : Math.ceil((now + wait) / s.timerMs) * s.timerMs;
    const next = Math.min(nextDone, nextTick);
    if (next === Number.POSITIVE_INFINITY) break;
    while (nextClose <= next) {
      rec.closeInterval(nextClose);
      nextClose += 1000;
    }
    now = next;
    for (let c = 0; c < s.connections; c++) {
      if (doneAt[c] !== now) continue;
      doneAt[c] = Number.POSITIVE_INFINITY;
      rec.answer((now - origin[c]!) * 1000, (now - sentAt[c]!) * 1000, late[c]! * 1000);
      loop.release(c, now);
    }
    loop.dispatch(now, send);
  }
  rec.closeInterval(now);
  return rec;
}

const BASE: Sim = { rate: 2000, durationMs: 10_000, connections: 64, serviceMs: 0.5, timerMs: 1 };

describe('open-loop schedule and histogram', () => {
  it('a 1.5 s stall in a 2,000/s schedule puts p99 above 750 ms; the time from each send does not show it', () => {
    const rec = simulate({ ...BASE, stall: { fromMs: 4000, toMs: 5500 } });
    const latency = summarize(rec.latency);
    const service = summarize(rec.service);
    expect(latency.count).toBe(20_000);
    expect(latency.p99Ms).toBeGreaterThan(750);
    // Requests due in the first 750 ms of the stall waited more than 750 ms: 1,500 of 20,000.
    expect(latency.p90Ms).toBeGreaterThan(100);
    expect(latency.maxMs).toBeGreaterThan(1400);
    expect(latency.maxMs).toBeLessThan(1600);
    // Only the 64 requests in flight when it began saw the stall from their send.
    expect(service.p99Ms).toBeLessThan(5);
    expect(service.maxMs).toBeGreaterThan(1400);
    // The series shows the stall when the answers came: in the interval in which it ended.
    const worst = rec.series.maxMs.indexOf(Math.max(...rec.series.maxMs.map((m) => m ?? 0)));
    expect(rec.series.tS[worst]).toBe(6);
    expect(rec.series.rps[4]).toBeLessThanOrEqual(1); // 4–5 s: nothing answered but at the stall's first instant
    expect(rec.series.rps[5]).toBeGreaterThan(2000); // 5–6 s: the backlog and the new requests
  });

  it('without the stall the same schedule stays near the service time, and the timer lateness is left out of the latency', () => {
    const rec = simulate({ ...BASE, serviceMs: 0.3 });
    const latency = summarize(rec.latency);
    expect(latency.count).toBe(20_000);
    expect(latency.maxMs).toBeLessThan(0.31);
    // The slots fall every 0.5 ms and the generator wakes every 1 ms (an answer due 0.3 ms after
    // a send finds no slot due): every other send is late, by half a tick, with a connection idle.
    const late = summarize(rec.lateness);
    expect(late.count).toBeGreaterThan(9_000);
    expect(late.maxMs).toBeLessThanOrEqual(1);
  });

  it('with too few connections for the rate, the wait for a free connection counts: latency grows through the run', () => {
    // 2 connections × 1 answer per 2 ms = 1,000/s for a 2,000/s schedule: the backlog grows by 1 a ms.
    const rec = simulate({ ...BASE, durationMs: 2000, connections: 2, serviceMs: 2 });
    const latency = summarize(rec.latency);
    expect(latency.count).toBe(4000);
    expect(latency.maxMs).toBeGreaterThan(1900);
    expect(summarize(rec.service).maxMs).toBeLessThan(2.1);
  });
});

describe('OpenLoop', () => {
  it('spaces the slots 1000 / rate ms apart and counts what is due', () => {
    const loop = new OpenLoop(4, 1000, 2);
    expect(loop.total).toBe(4);
    expect([0, 1, 2, 3].map((i) => loop.slot(i))).toEqual([0, 250, 500, 750]);
    expect(loop.due(0)).toBe(1);
    expect(loop.due(499)).toBe(2);
    expect(loop.due(10_000)).toBe(4);
    expect(loop.msUntilNext(100)).toBe(0);
  });

  it('hands due requests to the connection idle the longest, counting from the slot when all were busy', () => {
    const loop = new OpenLoop(1000, 10, 2);
    const sent: [number, number, number, number][] = [];
    const send = (c: number, i: number, o: number, l: number): void => void sent.push([c, i, o, l]);
    expect(loop.dispatch(0.4, send)).toBe(1); // slot 0 due; connection 0 idle since 0
    expect(sent.at(-1)).toEqual([0, 0, 0.4, 0.4]); // the generator's lateness: counted from the send
    expect(loop.dispatch(5, send)).toBe(1); // slots 1…5 due, only connection 1 idle (since 0)
    expect(sent.at(-1)).toEqual([1, 1, 5, 4]);
    expect(loop.backlog(5)).toBe(4);
    loop.release(1, 7); // busy past slots 2…7: they count from their slots
    loop.release(0, 8);
    expect(loop.dispatch(8, send)).toBe(2);
    expect(sent.slice(-2)).toEqual([
      [1, 2, 2, 0],
      [0, 3, 3, 0],
    ]);
    expect(loop.backlog(8)).toBe(5);
    expect(loop.truncate(4)).toBe(6);
    expect(loop.exhausted).toBe(true);
    expect(loop.msUntilNext(8)).toBeNull();
  });
});
