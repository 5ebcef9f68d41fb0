// Invariant: a Link read back from a cache tier is the Link that was written, in the same shape
// (same members in the same order), without recomputing what it derives; an entry without its
// derived values is built again from its stored members.
import { describe, expect, it } from 'vitest';
import { linkOf } from '../../test/support/model-fixtures.ts';
import { buildLink, reviveLink, type Link } from './link.ts';

describe('reviveLink', () => {
  const link = linkOf({ url: 'https://shop.example/p?utm_source=old#f', utmSource: 'news', customMetadataTitle: 'T', enableCustomMetadata: true });

  it('gives back the cached Link, member for member and in order', () => {
    const revived = reviveLink(JSON.parse(JSON.stringify(link)) as Link);
    expect(revived).toEqual(link);
    expect(Object.keys(revived)).toEqual(Object.keys(link));
    expect(revived.destination).toBe('https://shop.example/p?utm_source=news#f');
  });

  it('keeps the derived values it was written with (they are not recomputed)', () => {
    const json = { ...(JSON.parse(JSON.stringify(link)) as Link), destination: 'https://written.example/' };
    expect(reviveLink(json).destination).toBe('https://written.example/');
  });

  it('builds an entry that lacks its derived values from its stored members', () => {
    const { destination: _d, safeDestination: _s, effectivePreviewMetadata: _e, ...stored } = JSON.parse(JSON.stringify(link)) as Link;
    expect(reviveLink(stored as Link)).toEqual(buildLink(stored));
    expect(reviveLink(stored as Link)).toEqual(link);
  });
});
