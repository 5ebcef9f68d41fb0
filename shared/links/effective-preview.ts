// Invariant: effectivePreviewMetadata is, key by key, the custom override when the link enables
// custom metadata and sets that key, else the Open Graph value fetched from the destination.
// Keys without a value are absent.

export interface PreviewFields {
  title: string | null;
  description: string | null;
  imageUrl: string | null;
}

export type PreviewMetadata = Partial<Record<'title' | 'description' | 'imageUrl', string>>;

export function effectivePreview(enableCustom: boolean, custom: PreviewFields, fetched: PreviewFields): PreviewMetadata {
  const out: PreviewMetadata = {};
  for (const key of ['title', 'description', 'imageUrl'] as const) {
    const value = (enableCustom ? custom[key] : null) ?? fetched[key];
    if (value !== null && value !== '') out[key] = value;
  }
  return out;
}
