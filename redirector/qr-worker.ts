// Invariant: runs in a worker thread and draws QR images there, never on the thread that answers
// redirects: every job message gets exactly one answer with the same id (the image, or an error).
import { parentPort } from 'node:worker_threads';
import { drawQr, type QrFormat } from './qr-codes.ts';

export interface QrJob {
  id: number;
  format: QrFormat;
  text: string;
}

export type QrJobResult = { id: number; ok: true; body: string | Uint8Array } | { id: number; ok: false; message: string };

const port = parentPort;
if (port === null) throw new Error('qr-worker.ts runs only as a worker thread');
port.on('message', (job: QrJob) => {
  drawQr(job.format, job.text).then(
    (image) => port.postMessage({ id: job.id, ok: true, body: typeof image.body === 'string' ? image.body : new Uint8Array(image.body) } satisfies QrJobResult),
    (err: unknown) => port.postMessage({ id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) } satisfies QrJobResult),
  );
});
