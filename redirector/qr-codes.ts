// Invariant: a QR image is a deterministic function of (format, text): this module is the one
// place that says how one is drawn (margin, size, error correction), whichever thread draws it.
import QRCode from 'qrcode';

export type QrFormat = 'svg' | 'png';

export interface QrImage {
  contentType: string;
  body: string | Buffer;
}

export const QR_CONTENT_TYPES: Readonly<Record<QrFormat, string>> = { svg: 'image/svg+xml', png: 'image/png' };

export async function drawQr(format: QrFormat, text: string): Promise<QrImage> {
  return format === 'svg'
    ? { contentType: QR_CONTENT_TYPES.svg, body: await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }) }
    : { contentType: QR_CONTENT_TYPES.png, body: await QRCode.toBuffer(text, { type: 'png', margin: 2, width: 512, errorCorrectionLevel: 'M' }) };
}
