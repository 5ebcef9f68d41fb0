// Invariant: effectivePreviewMetadata is, key by key, the link's custom value when the link
// enables custom metadata and sets that key, else the value fetched from the destination's page.
// Keys without a non-empty value are absent (the API omits nulls).
import { z } from 'zod';

export const previewMetadataSchema = z.strictObject({ title: z.string().optional(), description: z.string().optional(), imageUrl: z.string().optional() });
export type PreviewMetadata = z.infer<typeof previewMetadataSchema>;
export type PreviewKey = keyof PreviewMetadata;

export interface PreviewOverrides {
  enableCustomMetadata: boolean;
  customMetadataTitle: string | null;
  customMetadataDescription: string | null;
  customMetadataImageUrl: string | null;
}

export interface FetchedPreview {
  title: string | null;
  description: string | null;
  imageUrl: string | null;
}

export function effectivePreviewMetadata(link: PreviewOverrides, preview: FetchedPreview | null): PreviewMetadata {
  const custom: Record<PreviewKey, string | null> = link.enableCustomMetadata
    ? { title: link.customMetadataTitle, description: link.customMetadataDescription, imageUrl: link.customMetadataImageUrl }
    : { title: null, description: null, imageUrl: null };
  const out: PreviewMetadata = {};
  for (const key of ['title', 'description', 'imageUrl'] as const) {
    const value = nonEmpty(custom[key]) ?? nonEmpty(preview?.[key] ?? null);
    if (value !== null) out[key] = value;
  }
  return out;
}

function nonEmpty(v: string | null): string | null {
  return v === null || v.trim() === '' ? null : v;
}
