import { describe, expect, it } from 'vitest';
import { apiBase, loadHelp, OPTIONS, type ParsedArgs, parseDuration, parseLoadArgs, parsePercent, parseRate } from './options.ts';

const run = (p: ParsedArgs) => {
  if (p.kind !== 'run') throw new Error(`expected options, got ${JSON.stringify(p)}`);
  return p.options;
};
const errorOf = (p: ParsedArgs): string => {
  if (p.kind !== 'error') throw new Error(`expected an error, got ${p.kind}`);
  return p.message;
};

describe('load options', () => {
  it('fills the defaults', () => {
    const o = run(parseLoadArgs(['--target', 'https://sho.rt', '--codes', 'codes.txt']));
    expect(o.target.href).toBe('https://sho.rt/');
    expect(o).toMatchObject({
      rate: 1000,
      durationMs: 30_000,
      connections: 64,
      source: { kind: 'codes', file: 'codes.txt' },
      api: null,
      reportDir: null,
      maxErrors: 0.001,
      forwardedFor: false,
      timeoutMs: 10_000,
    });
  });

  it('reads every option, in both spellings', () => {
    const o = run(
      parseLoadArgs([
        '--target=http://10.0.0.5:8080/r/',
        '--rate',
        '2k/s',
        '--duration=1.5m',
        '--connections',
        '256',
        '--links',
        '500',
        '--api-url',
        'https://api.example.com/link/external/v1/',
        '--api-key=slk_x',
        '--report',
        'out',
        '--max-errors',
        '1%',
        '--forwarded-for',
        '--timeout',
        '2s',
      ]),
    );
    expect(o).toMatchObject({
      rate: 2000,
      durationMs: 90_000,
      connections: 256,
      source: { kind: 'links', count: 500 },
      api: { url: 'https://api.example.com', key: 'slk_x' },
      reportDir: 'out',
      maxErrors: 0.01,
      forwardedFor: true,
      timeoutMs: 2000,
    });
    expect(o.target.pathname).toBe('/r/');
  });

  it('says in one line what is wrong', () => {
    const cases: [string[], string][] = [
      [['--codes', 'f'], '--target URL is required'],
      [['--target', 'ftp://x', '--codes', 'f'], '--target must be an http:// or https:// URL'],
      [['--target', 'http://x', '--codes', 'f', '--rate', 'fast'], "--rate must be a positive number of requests a second (2000 or 2000/s), got 'fast'"],
      [['--target', 'http://x', '--codes', 'f', '--rate', '0'], '--rate must be a positive'],
      [['--target', 'http://x', '--codes', 'f', '--duration', '30x'], '--duration must be a positive time'],
      [['--target', 'http://x', '--codes', 'f', '--connections', '0'], '--connections must be a whole number from 1 to 10000'],
      [['--target', 'http://x', '--codes', 'f', '--max-errors', '150%'], '--max-errors must be a percentage from 0 to 100'],
      [['--target', 'http://x'], 'give --codes FILE (links to visit) or --links N'],
      [['--target', 'http://x', '--codes', 'f', '--links', '3'], 'give --codes FILE or --links N, not both'],
      [['--target', 'http://x', '--links', '3'], '--links needs --api-url and --api-key'],
      [['--target', 'http://x', '--links', 'many', '--api-url', 'http://a', '--api-key', 'k'], '--links must be a whole number from 1 to 100000'],
      [['--target', 'http://x', '--codes', 'f', '--api-key', 'k'], '--api-key needs --api-url'],
      [['--target', 'http://x', '--codes', 'f', '--api-url', 'http://a'], '--api-url needs --api-key'],
      [['--target', 'http://x', '--codes', 'f', '--frobnicate'], "unknown option '--frobnicate'"],
      [['--target', 'http://x', '--codes', 'f', 'extra'], "unexpected argument 'extra'"],
      [['--target', 'http://x', '--codes'], '--codes needs a value (FILE)'],
      [['--target', 'http://x', '--codes', 'f', '--forwarded-for=yes'], '--forwarded-for takes no value'],
      [['--target', 'http://x', '--codes', 'f', '--rate', '1', '--rate', '2'], '--rate given twice'],
      [['--target', 'http://x', '--codes', 'f', '--rate', '1', '--duration', '100ms'], 'at least one request'],
    ];
    for (const [args, text] of cases) {
      const message = errorOf(parseLoadArgs(args));
      expect(message).toContain(text);
      expect(message).toMatch(/^load: /);
      expect(message).not.toContain('\n');
    }
  });

  it('asks for help with --help or -h, and the help names every option', () => {
    expect(parseLoadArgs(['--target', 'x', '-h'])).toEqual({ kind: 'help' });
    expect(parseLoadArgs(['--help'])).toEqual({ kind: 'help' });
    const help = loadHelp();
    for (const o of OPTIONS) for (const name of o.name.split(', ')) expect(help).toContain(name);
    expect(help).toContain('usage: npm run bench -- load');
  });

  it('reads durations, rates and percentages', () => {
    expect([parseDuration('30s'), parseDuration('500ms'), parseDuration('5m'), parseDuration('1h'), parseDuration('2')]).toEqual([
      30_000, 500, 300_000, 3_600_000, 2000,
    ]);
    expect([parseDuration('0s'), parseDuration('-1s'), parseDuration('1d'), parseDuration('')]).toEqual([null, null, null, null]);
    expect([parseRate('2000'), parseRate('2000/s'), parseRate('1.5k'), parseRate('10K/s')]).toEqual([2000, 2000, 1500, 10_000]);
    expect([parseRate('0'), parseRate('/s'), parseRate('1e3')]).toEqual([null, null, null]);
    expect([parsePercent('0.1%'), parsePercent('0.1'), parsePercent('0'), parsePercent('100%')]).toEqual([0.001, 0.001, 0, 1]);
    expect([parsePercent('101'), parsePercent('x'), parsePercent('-1%')]).toEqual([null, null, null]);
    expect(apiBase(new URL('http://a:3000/'))).toBe('http://a:3000');
    expect(apiBase(new URL('http://a/api/link/external/v1'))).toBe('http://a/api');
  });
});
