import { describe, expect, it } from 'vitest';
import { commonSchema, ConfigError, parseConfig, shortLinkBase, startSchema } from './config.ts';

describe('config', () => {
  it('applies the documented defaults', () => {
    const c = parseConfig(startSchema, {});
    expect(c).toMatchObject({ API_PORT: 3000, REDIRECT_PORT: 8080, DATA_DIR: './data', TRUST_PROXY: { kind: 'hops', hops: 0 }, LOG_LEVEL: 'info' });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('SHORT_LINK_BASE_URL is the smartLink origin; else https://DEFAULT_SHORT_DOMAIN; else the local redirector over http', () => {
    expect(shortLinkBase(parseConfig(startSchema, {}))).toBe('http://localhost:8080');
    expect(shortLinkBase(parseConfig(startSchema, { REDIRECT_PORT: '9090' }))).toBe('http://localhost:9090');
    expect(shortLinkBase(parseConfig(commonSchema, { REDIRECT_PORT: '9090' }))).toBe('http://localhost:9090');
    expect(shortLinkBase(parseConfig(startSchema, { DEFAULT_SHORT_DOMAIN: 'Sho.rt' }))).toBe('https://sho.rt');
    const both = parseConfig(startSchema, { DEFAULT_SHORT_DOMAIN: 'sho.rt', SHORT_LINK_BASE_URL: 'HTTP://Links.Example:8443/' });
    expect(shortLinkBase(both)).toBe('http://links.example:8443');
  });

  it('SHORT_LINK_BASE_URL must be an http(s) origin without path, query or fragment', () => {
    for (const bad of ['sho.rt', 'ftp://sho.rt', 'https://sho.rt/x', 'https://sho.rt?a=1', 'https://sho.rt#top', 'https://u:p@sho.rt', 'https://sho.rt?']) {
      expect(() => parseConfig(startSchema, { SHORT_LINK_BASE_URL: bad }), bad).toThrow(/SHORT_LINK_BASE_URL: must be an http:\/\/ or https:\/\/ origin/);
    }
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

  it('TRUST_PROXY: a hop count (true = 1, false = 0) or a list of CIDRs, parsed into one shape', () => {
    const trust = (v: string) => parseConfig(startSchema, { TRUST_PROXY: v }).TRUST_PROXY;
    expect(trust('true')).toEqual({ kind: 'hops', hops: 1 });
    expect(trust('false')).toEqual({ kind: 'hops', hops: 0 });
    expect(trust('0')).toEqual({ kind: 'hops', hops: 0 });
    expect(trust('2')).toEqual({ kind: 'hops', hops: 2 });
    expect(trust('10.0.0.0/8, 192.168.1.7 ,FD00::/8')).toEqual({ kind: 'cidrs', cidrs: ['10.0.0.0/8', '192.168.1.7/32', 'fd00::/8'] });
    expect(trust('loopback')).toEqual({ kind: 'cidrs', cidrs: ['127.0.0.0/8', '::1/128'] });
    for (const bad of ['perhaps', '10.0.0.0/33', '10.0.0/8', '1.2.3.4,', '999']) {
      expect(() => trust(bad), bad).toThrow(/TRUST_PROXY/);
    }
  });

  it('treats empty values as unset', () => {
    const c = parseConfig(startSchema, { DATABASE_URL: '', API_PORT: '' });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.API_PORT).toBe(3000);
  });

  it('REDIS_CLUSTER_NODES: seed nodes host:port, comma-separated; REDIS_PREFIX cannot hold a hash tag', () => {
    const nodes = (v: string) => parseConfig(startSchema, { REDIS_CLUSTER_NODES: v }).REDIS_CLUSTER_NODES;
    expect(nodes('10.0.0.1:7000, redis-1.internal:7001,[::1]:7002')).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-1.internal', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(parseConfig(startSchema, {}).REDIS_CLUSTER_NODES).toBeUndefined();
    for (const bad of ['10.0.0.1', 'redis://10.0.0.1:7000', '10.0.0.1:0', 'a:1,', 'host:70000']) {
      expect(() => nodes(bad), bad).toThrow(/REDIS_CLUSTER_NODES: must be a comma-separated list of host:port/);
    }
    expect(() => parseConfig(startSchema, { REDIS_PREFIX: 'app{1}:' })).toThrow(/REDIS_PREFIX: must not contain \{ or \}/);
  });

  it('DATABASE_POOLER is none or transaction; DATABASE_DIRECT_URL a postgres URL', () => {
    expect(parseConfig(startSchema, {}).DATABASE_POOLER).toBe('none');
    const c = parseConfig(startSchema, { DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: 'postgres://db:5432/app' });
    expect(c).toMatchObject({ DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: 'postgres://db:5432/app' });
    expect(() => parseConfig(startSchema, { DATABASE_POOLER: 'session' })).toThrow(/DATABASE_POOLER/);
    expect(() => parseConfig(startSchema, { DATABASE_DIRECT_URL: 'mysql://x' })).toThrow(/DATABASE_DIRECT_URL/);
  });
});
