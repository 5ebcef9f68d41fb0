// Invariant: a QR image is a deterministic function of (format, text); each distinct pair is
// rendered once while it stays in the bounded cache.
import { LRUCache } from 'lru-cache';
import QRCode from 'qrcode';

export interface QrImage {
  contentType: string;
  body: string | Buffer;
}

/** Bounded by entries and by bytes (the key's text and the image). */
const cache = new LRUCache<string, QrImage>({
  max: 2_000,
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (image, key) => 2 * key.length + (typeof image.body === 'string' ? 2 * image.body.length : image.body.length),
});

export async function renderQr(format: 'svg' | 'png', text: string): Promise<QrImage> {
  const key = `${format}\n${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const image: QrImage =
    format === 'svg'
      ? { contentType: 'image/svg+xml', body: await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }) }
      : { contentType: 'image/png', body: await QRCode.toBuffer(text, { type: 'png', margin: 2, width: 512, errorCorrectionLevel: 'M' }) };
  cache.set(key, image);
  return image;
}
