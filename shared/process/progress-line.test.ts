// Invariant: the progress line writes only to a terminal, after its delay, throttled, and erases
// itself; written to a non-terminal stream it writes nothing.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressLine } from './progress-line.ts';

function stream(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return Object.assign(w, { isTTY, text: () => chunks.join('') });
}

describe('progress line', () => {
  it('on a terminal: nothing before the delay, then one line rewritten in place at most once per interval, erased by done()', async () => {
    const s = stream(true);
    let t = 0;
    const p = progressLine({ stream: s, delayMs: 1_000, intervalMs: 200, now: () => t });
    p.update('1/10');
    t = 999;
    p.update('2/10');
    t = 1_000;
    p.update('3/10');
    t = 1_100;
    p.update('4/10'); // throttled
    t = 1_200;
    p.update('5/10\nsecond line');
    p.done();
    await new Promise((r) => setImmediate(r));
    expect(s.text()).toBe('\r3/10\x1b[K\r5/10 second line\x1b[K\r\x1b[K');
  });

  it('clear() erases the line before a log line, and the next update draws it again', async () => {
    const s = stream(true);
    const p = progressLine({ stream: s, delayMs: 0, intervalMs: 10_000, now: () => 5 });
    p.update('a');
    p.clear();
    p.clear(); // nothing shown: nothing to erase
    p.update('b');
    await new Promise((r) => setImmediate(r));
    expect(s.text()).toBe('\ra\x1b[K\r\x1b[K\rb\x1b[K');
  });

  it('on a pipe or file it writes nothing', async () => {
    const s = stream(false);
    const p = progressLine({ stream: s, delayMs: 0, intervalMs: 0 });
    p.update('x');
    p.clear();
    p.done();
    await new Promise((r) => setImmediate(r));
    expect(s.text()).toBe('');
  });
});
