// Invariant: `npm run bench -- load` end to end, as a function returning the exit code: 0 when the
// verdict passes, 1 when it fails, 2 (one line on stderr, nothing measured) on bad arguments or a
// run that cannot start (report folder, codes file, target or API out of reach, key refused).
// Progress goes to stdout while it runs: one line rewritten on a terminal, a plain line every
// PLAIN_PROGRESS_MS otherwise. The table follows, and report.json and report.html are written to
// the report folder before the function returns.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { progressLine } from '../../shared/process/progress-line.ts';
import { type AnalyticsOutcome, storedClicks, waitForStored } from './analytics-check.ts';
import { ApiError } from './api.ts';
import type { Target } from './connection.ts';
import { runLoad, TargetUnreachable } from './generator.ts';
import { createLinks, parseCodes } from './links.ts';
import { type LoadOptions, loadHelp, parseLoadArgs } from './options.ts';
import { buildReport, ms, renderTable, servedOf } from './report.ts';
import { renderHtml, uplotSources } from './report-html.ts';
import { trafficGenerator, type Visit } from './traffic.ts';

const plural = (n: number, noun: string): string => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
const ROOT = join(import.meta.dirname, '..', '..');
const PLAIN_PROGRESS_MS = 5_000;

export interface LoadIo {
  stdout: Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean };
  stderr: Pick<NodeJS.WriteStream, 'write'>;
}

class SetupFailure extends Error {}

/** A timestamp for names: 20261127-101500. */
const stamp = (d: Date): string => d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

function targetOf(u: URL): Target {
  const tls = u.protocol === 'https:';
  return { tls, host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port === '' ? (tls ? 443 : 80) : Number(u.port) };
}

/** Prints progress: rewritten in place on a terminal, plain lines at most every PLAIN_PROGRESS_MS elsewhere. */
function progressPrinter(stream: LoadIo['stdout']): { show(text: string): void; done(): void } {
  if (stream.isTTY === true) {
    const line = progressLine({ stream, delayMs: 0, intervalMs: 0 });
    return { show: (t) => line.update(t), done: () => line.done() };
  }
  let last = Number.NEGATIVE_INFINITY;
  return {
    show: (t) => {
      const now = Date.now();
      if (now - last < PLAIN_PROGRESS_MS) return;
      last = now;
      stream.write(`${t}\n`);
    },
    done: () => {},
  };
}

async function visitsFor(o: LoadOptions, runId: string, progress: (t: string) => void): Promise<Visit[]> {
  if (o.source.kind === 'codes') {
    let text: string;
    try {
      text = readFileSync(o.source.file, 'utf8');
    } catch (err) {
      throw new SetupFailure(`cannot read --codes ${o.source.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const parsed = parseCodes(text, o.target.host);
    if ('error' in parsed) throw new SetupFailure(`--codes ${o.source.file}: ${parsed.error}`);
    return parsed.visits;
  }
  const count = o.source.count;
  return createLinks(o.api!, count, runId, (created, waitS) =>
    progress(
      `creating links through the API: ${created.toLocaleString('en-US')} of ${count.toLocaleString('en-US')}${waitS === null ? '' : ` (rate-limited, waiting ${waitS} s)`}`,
    ),
  );
}

export async function loadCommand(argv: readonly string[], io: LoadIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const parsed = parseLoadArgs(argv);
  if (parsed.kind === 'help') {
    io.stdout.write(`${loadHelp()}\n`);
    return 0;
  }
  if (parsed.kind === 'error') {
    io.stderr.write(`${parsed.message}\n`);
    return 2;
  }
  const o = parsed.options;
  const now = new Date();
  const runId = `${stamp(now).toLowerCase()}-${randomBytes(3).toString('hex')}`;
  const reportDir = resolve(o.reportDir ?? join(ROOT, 'bench', 'results', `load-${stamp(now)}`));
  const inCwd = relative(process.cwd(), reportDir);
  const shownDir = inCwd === '' ? '.' : inCwd.startsWith('..') ? reportDir : inCwd;
  // Every visit carries this Referer host: the analytics check counts the run's clicks by it.
  const referrerDomain = `${runId}.load-kit.invalid`;
  const progress = progressPrinter(io.stdout);

  let visits: Visit[];
  try {
    mkdirSync(reportDir, { recursive: true });
    visits = await visitsFor(o, runId, progress.show);
    progress.done();
    if (o.api !== null) await storedClicks(o.api, referrerDomain, now.getTime()); // the analytics API answers this key, before the run
  } catch (err) {
    progress.done();
    if (err instanceof SetupFailure || err instanceof ApiError) io.stderr.write(`load: ${err.message}\n`);
    else io.stderr.write(`load: cannot prepare the run: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return 2;
  }

  const abort = new AbortController();
  const onSigint = (): void => {
    if (abort.signal.aborted) process.exit(130);
    abort.abort();
  };
  process.on('SIGINT', onSigint);
  const startedAtMs = Date.now();
  let run: Awaited<ReturnType<typeof runLoad>>;
  try {
    run = await runLoad({
      target: targetOf(o.target),
      rate: o.rate,
      durationMs: o.durationMs,
      connections: o.connections,
      timeoutMs: o.timeoutMs,
      nextRequest: trafficGenerator({
        visits,
        basePath: o.target.pathname.replace(/\/+$/, ''),
        referrer: `https://${referrerDomain}/`,
        forwardedFor: o.forwardedFor,
        seed: 42,
      }),
      signal: abort.signal,
      onStart: () =>
        io.stdout.write(
          `load: ${o.rate.toLocaleString('en-US')}/s for ${o.durationMs / 1000} s on ${o.connections} connections to ${o.target.href}, ` +
            `${plural(visits.length, 'link')} (Zipf), run ${runId}\n`,
        ),
      onInterval: (p) =>
        progress.show(
          `${(p.elapsedMs / 1000).toFixed(0).padStart(5)} s  ${p.rps.toLocaleString('en-US').padStart(7)}/s  p99 ${p.p99Ms === null ? '-' : ms(p.p99Ms)} ms  ` +
            `sent ${p.sent.toLocaleString('en-US')}  answered ${p.answered.toLocaleString('en-US')}  errors ${p.errors.toLocaleString('en-US')}  backlog ${p.backlog.toLocaleString('en-US')}`,
        ),
    });
  } catch (err) {
    progress.done();
    process.off('SIGINT', onSigint);
    if (err instanceof TargetUnreachable) {
      io.stderr.write(`load: cannot connect to --target ${o.target.href}: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  progress.done();
  process.off('SIGINT', onSigint);

  const served = servedOf(run.statuses);
  let analytics: AnalyticsOutcome | null = null;
  let analyticsError: string | null = null;
  if (o.api !== null) {
    try {
      analytics = await waitForStored(o.api, referrerDomain, served, startedAtMs, (s) =>
        progress.show(
          `analytics: ${s.stored.toLocaleString('en-US')} of ${served.toLocaleString('en-US')} clicks stored, ${(s.atMs / 1000).toFixed(0)} s after the run`,
        ),
      );
    } catch (err) {
      analyticsError = err instanceof ApiError ? err.message : String(err);
    }
    progress.done();
  }

  const report = buildReport({ runId, startedAtMs, finishedAtMs: Date.now(), options: o, linkCount: visits.length, run, analytics, analyticsError });
  writeFileSync(join(reportDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(reportDir, 'report.html'), renderHtml(report, uplotSources()));
  io.stdout.write(`${renderTable(report, shownDir)}\n`);
  if (analytics !== null && analytics.stored === 0 && served > 0) {
    io.stdout.write(
      `  (no click of this run was found by referrerDomain ${referrerDomain}: is the analytics pipeline running, and does the organisation record referrers?)\n`,
    );
  }
  return report.verdict.pass ? 0 : 1;
}
