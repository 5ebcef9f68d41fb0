import { describe, expect, it } from 'vitest';
import { parseCodes } from './links.ts';

describe('codes file', () => {
  it('reads short codes (the target host) and short URLs (their own host), skipping blanks and comments', () => {
    expect(parseCodes('# campaign\nlaunch-2026\n\n  https://go.example.com/spring?x=1  \nhttp://sho.rt:8080/abc_DEF\r\n', 'sho.rt')).toEqual({
      visits: [
        { host: 'sho.rt', path: '/launch-2026' },
        { host: 'go.example.com', path: '/spring?x=1' },
        { host: 'sho.rt:8080', path: '/abc_DEF' },
      ],
    });
  });

  it('refuses a line that is neither, with its number, and a file without links', () => {
    expect(parseCodes('good-code\nnot a code\n', 'h')).toEqual({ error: "line 2: 'not a code' is neither a short code nor a short URL" });
    expect(parseCodes('ftp://x/y', 'h')).toMatchObject({ error: expect.stringContaining('line 1') });
    expect(parseCodes('https://sho.rt/', 'h')).toMatchObject({ error: expect.stringContaining('line 1') });
    expect(parseCodes('# nothing\n\n', 'h')).toEqual({ error: 'no links in it (one short code or short URL a line)' });
  });
});
