// Invariant: the load generator's I/O shell. It opens every connection first, then follows the
// open-loop schedule (schedule.ts) on one clock (ms from the start, performance.now()): a request
// leaves when its slot has come and a connection is idle, and every answer or failure is recorded
// against the slot it had. It stops sending at the end of the schedule, waits at most the request
// timeout for the answers in flight, and counts what was never sent. Memory is bounded by the
// connections (one request in flight each) and the recorder's histograms; the backlog of due
// requests is a count, never a queue.
import { LatencyRecorder, seriesIntervalMs } from './latency.ts';
import { Connection, type Outcome, type Target } from './connection.ts';
import { OpenLoop } from './schedule.ts';

export interface RunConfig {
  target: Target;
  rate: number;
  durationMs: number;
  connections: number;
  timeoutMs: number;
  nextRequest: () => string;
  /** Called once every connection is open, just before the first request. */
  onStart?: () => void;
  /** Called when each interval of the series closes. */
  onInterval?: (p: Progress) => void;
  /** Aborting ends the schedule now (Ctrl-C): the run finishes with what was sent. */
  signal?: AbortSignal;
}

export interface Progress {
  elapsedMs: number;
  sent: number;
  answered: number;
  errors: number;
  backlog: number;
  /** Answers per second and p99 (ms, from the schedule) of the interval that closed; p99 null without answers. */
  rps: number;
  p99Ms: number | null;
}

export interface RunResult {
  recorder: LatencyRecorder;
  scheduled: number;
  sent: number;
  /** Requests that got an HTTP answer (any status). */
  answered: number;
  statuses: Map<number, number>;
  /** Failed requests by kind: `HTTP <status>` for statuses of 400 and above, else the transport's error. */
  errors: Map<string, number>;
  /** From the first slot to the last answer or failure. */
  elapsedMs: number;
  /** CPU time of this process (user + system) over the run, ms. */
  cpuMs: number;
  interrupted: boolean;
}

export class TargetUnreachable extends Error {}

const HOUSEKEEPING_MS = 100;

export async function runLoad(cfg: RunConfig): Promise<RunResult> {
  const statuses = new Map<number, number>();
  const errors = new Map<string, number>();
  const recorder = new LatencyRecorder(seriesIntervalMs(cfg.durationMs));
  const schedule = new OpenLoop(cfg.rate, cfg.durationMs, cfg.connections);
  let t0 = 0;
  const clock = (): number => performance.now() - t0;
  let sent = 0;
  let answered = 0;
  let failed = 0;
  let lastEventMs = 0;
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((r) => (resolveDone = r));

  const count = <K>(m: Map<K, number>, k: K, n = 1): void => {
    m.set(k, (m.get(k) ?? 0) + n);
  };
  const onDone = (c: Connection, o: Outcome): void => {
    const now = clock();
    lastEventMs = now;
    if (o.error === null) {
      answered++;
      count(statuses, o.status);
      recorder.answer((now - c.originMs) * 1000, (now - c.sentAt) * 1000, c.lateMs * 1000);
      if (o.status >= 400) {
        failed++;
        count(errors, `HTTP ${o.status}`);
        recorder.error();
      }
    } else {
      failed++;
      count(errors, o.error);
      recorder.error();
    }
    schedule.release(c.id, now);
    pump();
  };
  const conns = Array.from({ length: cfg.connections }, (_, i) => new Connection(i, cfg.target, onDone));
  try {
    await Promise.all(conns.map((c) => c.open()));
  } catch (err) {
    for (const c of conns) c.close();
    throw new TargetUnreachable((err as Error).message);
  }

  const send = (conn: number, _index: number, originMs: number, lateMs: number): void => {
    const c = conns[conn]!;
    c.originMs = originMs;
    c.lateMs = lateMs;
    c.send(cfg.nextRequest(), clock());
    sent++;
  };
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Number.POSITIVE_INFINITY;
  const fire = (): void => {
    timer = null;
    timerAt = Number.POSITIVE_INFINITY;
    pump();
  };
  let finished = false;
  function pump(): void {
    if (finished) return;
    const now = clock();
    schedule.dispatch(now, send);
    if (schedule.exhausted) {
      if (conns.every((c) => !c.busy)) finish();
      return;
    }
    if (schedule.idle === 0) return; // an answer will pump again
    const wait = schedule.msUntilNext(now) ?? 0;
    const at = now + Math.max(1, Math.floor(wait));
    if (at < timerAt) {
      if (timer !== null) clearTimeout(timer);
      timerAt = at;
      timer = setTimeout(fire, Math.max(1, Math.floor(wait)));
    }
  }

  let interrupted = false;
  const onAbort = (): void => {
    interrupted = true;
    schedule.truncate(schedule.due(clock()));
    pump();
  };
  cfg.signal?.addEventListener('abort', onAbort, { once: true });

  const intervalMs = recorder.series.intervalMs;
  let nextIntervalMs = intervalMs;
  let lastCloseMs = 0;
  const closeInterval = (now: number): void => {
    recorder.closeInterval(now);
    lastCloseMs = now;
    const s = recorder.series;
    const last = s.tS.length - 1;
    cfg.onInterval?.({
      elapsedMs: now,
      sent,
      answered,
      errors: failed,
      backlog: schedule.backlog(now),
      rps: s.rps[last] ?? 0,
      p99Ms: s.p99Ms[last] ?? null,
    });
  };

  const deadlineMs = cfg.durationMs + cfg.timeoutMs;
  /** Every HOUSEKEEPING_MS: the deadline, the per-request timeouts, and the interval that ends. */
  const housekeeping = (): void => {
    const now = clock();
    if (now > deadlineMs && !finished) {
      const notSent = schedule.truncate(0);
      if (notSent > 0) {
        failed += notSent;
        count(errors, 'not sent', notSent);
      }
      for (const c of conns) if (c.busy) c.abort(now - c.sentAt > cfg.timeoutMs ? 'timeout' : 'unanswered at the end');
    }
    for (const c of conns) if (c.busy && now - c.sentAt > cfg.timeoutMs) c.abort('timeout');
    if (now >= nextIntervalMs) {
      closeInterval(now);
      nextIntervalMs = now - (now % intervalMs) + intervalMs;
    }
  };

  function finish(): void {
    finished = true;
    resolveDone();
  }

  cfg.onStart?.();
  const cpuBefore = process.cpuUsage();
  t0 = performance.now();
  const ticker = setInterval(housekeeping, HOUSEKEEPING_MS);
  pump();
  await done;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(ticker);
  if (timer !== null) clearTimeout(timer);
  cfg.signal?.removeEventListener('abort', onAbort);
  const end = clock();
  if (end > lastCloseMs) closeInterval(end);
  for (const c of conns) c.close();
  return {
    recorder,
    scheduled: schedule.total + (errors.get('not sent') ?? 0),
    sent,
    answered,
    statuses,
    errors,
    elapsedMs: lastEventMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    interrupted,
  };
}
