// Invariant: hostile titles, descriptions and URLs never produce markup in any page.
import { describe, expect, it } from 'vitest';
import { escapeHtml } from './html-escape.ts';
import { appOpenPage, cloakPage, crawlerPage, errorPage } from './html-pages.ts';

const HOSTILE = `"'><script>alert(1)</script><img src=x onerror=alert(2)>\`=&\u0000`;

describe('escapeHtml', () => {
  it('escapes every character that can leave text or a quoted attribute, and drops controls', () => {
    expect(escapeHtml(HOSTILE)).toBe('&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src&#61;x onerror&#61;alert(2)&gt;&#96;&#61;&amp;');
    expect(escapeHtml('plain text 123')).toBe('plain text 123');
  });
});

describe('pages', () => {
  const meta = { title: HOSTILE, description: HOSTILE, imageUrl: `https://i.example/${HOSTILE}` };
  const pages = {
    error: errorPage(404, 'EN001', HOSTILE, HOSTILE).body,
    cloak: cloakPage(`https://d.example/?q=${HOSTILE}`, meta, `https://s.example/${HOSTILE}`).body,
    app: appOpenPage(`x://${HOSTILE}`, `https://f.example/${HOSTILE}`, meta).body,
    crawler: crawlerPage(meta, `https://s.example/${HOSTILE}`, `https://d.example/${HOSTILE}`).body,
  };
  for (const [name, body] of Object.entries(pages)) {
    it(`${name} page contains no injected markup`, () => {
      expect(body).not.toContain('<script>alert');
      expect(body).not.toContain('<img');
      expect(body).not.toMatch(/onerror=/);
      expect(body).not.toContain('\u0000');
      // Exactly one script at most: the fixed one of the app page.
      expect((body.match(/<script>/g) ?? []).length).toBe(name === 'app' ? 1 : 0);
    });
  }
  it('app page script is fixed text, its hash is in the CSP', async () => {
    const { createHash } = await import('node:crypto');
    const page = appOpenPage('x://a', 'https://f.example/', {});
    const script = /<script>(.*)<\/script>/.exec(page.body)?.[1] ?? '';
    expect(page.csp).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(appOpenPage(`x://${HOSTILE}`, 'https://f.example/', {}).body).toContain(script);
  });
});
