import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, startSchema } from './config.ts';

describe('config', () => {
  it('applies the documented defaults', () => {
    const c = parseConfig(startSchema, {});
    expect(c).toMatchObject({ API_PORT: 3000, REDIRECT_PORT: 8080, DATA_DIR: './data', TRUST_PROXY: false, LOG_LEVEL: 'info' });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('lists every problem at once', () => {
    try {
      parseConfig(startSchema, { API_PORT: '70000', REDIRECT_PORT: 'x', REDIS_URL: 'http://nope', LOG_LEVEL: 'chatty' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const v of ['API_PORT', 'REDIRECT_PORT', 'REDIS_URL', 'LOG_LEVEL']) expect(problems).toContain(v);
    }
  });

  it('treats empty values as unset', () => {
    const c = parseConfig(startSchema, { DATABASE_URL: '', API_PORT: '' });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.API_PORT).toBe(3000);
  });
});
