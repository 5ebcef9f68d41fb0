// Invariant: effectivePreviewMetadata is pinned key by key with plain values.
import { describe, expect, it } from 'vitest';
import { effectivePreviewMetadata } from './effective-preview-metadata.ts';

describe('effectivePreviewMetadata', () => {
  const link = { enableCustomMetadata: true, customMetadataTitle: 'Custom', customMetadataDescription: null, customMetadataImageUrl: '' };
  const fetched = { title: 'Fetched', description: 'Fetched desc', imageUrl: 'https://i.example/a.png' };
  it('custom values where enabled and set, fetched values otherwise; empty keys absent', () => {
    expect(effectivePreviewMetadata(link, fetched)).toEqual({ title: 'Custom', description: 'Fetched desc', imageUrl: 'https://i.example/a.png' });
    expect(effectivePreviewMetadata({ ...link, enableCustomMetadata: false }, fetched)).toEqual(fetched);
    expect(effectivePreviewMetadata({ ...link, enableCustomMetadata: false }, null)).toEqual({});
  });
});
