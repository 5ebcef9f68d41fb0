// Invariant: QR images are drawn off the event loop, in one worker thread per process, so a flood
// of QR requests never delays a redirect. Drawn images live in a cache bounded by bytes (a hit costs
// nothing); identical concurrent requests share one drawing. A drawing costs the client address
// one token of a per-address bucket (QR_RENDERS_PER_MINUTE): an empty bucket is refused with a
// retry time, and so is a full queue of drawings, instead of letting work pile up.
import { Worker } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { takeToken, type BucketState } from '../shared/limits/token-bucket.ts';
import { QR_CONTENT_TYPES, type QrFormat, type QrImage } from './qr-codes.ts';
import type { QrJob, QrJobResult } from './qr-worker.ts';

export interface QrRendererOptions {
  /** Bytes of drawn images kept (SVG text and PNG bytes). */
  cacheMaxBytes: number;
  /** Drawings one client address may cause per minute. */
  rendersPerMinute: number;
  /** Drawings queued or in progress at most; more are refused. */
  maxQueued?: number;
}

/** A drawing refused: `reason` says which answer to give. */
export class QrRefused extends Error {
  constructor(
    readonly reason: 'rate_limited' | 'busy',
    readonly retryAfterSeconds: number,
  ) {
    super(reason === 'rate_limited' ? 'QR rendering rate limit exceeded' : 'QR renderer busy');
  }
}

const DEFAULT_MAX_QUEUED = 64;
/** Client addresses whose buckets are remembered (an absent bucket is a full one). */
const MAX_CLIENTS = 10_000;
/** Where the worker's module is: the .ts source under tsx and vitest, the .js file in a build. */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './qr-worker.ts' : './qr-worker.js', import.meta.url);

export class QrRenderer {
  readonly #o: Required<QrRendererOptions>;
  readonly #cache: LRUCache<string, QrImage>;
  readonly #drawing = new Map<string, Promise<QrImage>>();
  readonly #buckets = new LRUCache<string, BucketState>({ max: MAX_CLIENTS });
  readonly #waiting = new Map<number, { resolve: (body: string | Uint8Array) => void; reject: (err: Error) => void }>();
  #worker: Worker | null = null;
  #nextId = 1;
  /** Drawings done by the worker (tests and metrics read it). */
  drawn = 0;

  constructor(options: QrRendererOptions) {
    this.#o = { maxQueued: DEFAULT_MAX_QUEUED, ...options };
    this.#cache = new LRUCache<string, QrImage>({
      maxSize: Math.max(1, options.cacheMaxBytes),
      // Strings count two bytes a character (V8's worst case), buffers their length.
      sizeCalculation: (image, key) => 2 * key.length + (typeof image.body === 'string' ? 2 * image.body.length : image.body.length),
    });
  }

  /** The image if it is drawn already; never draws. */
  cached(format: QrFormat, text: string): QrImage | undefined {
    return this.#cache.get(`${format}\n${text}`);
  }

  /** The image, drawn in the worker if it is not cached. Throws QrRefused when refused. */
  render(format: QrFormat, text: string, client: string | null, nowMs = Date.now()): Promise<QrImage> {
    const key = `${format}\n${text}`;
    const hit = this.#cache.get(key);
    if (hit) return Promise.resolve(hit);
    const shared = this.#drawing.get(key);
    if (shared) return shared;
    if (this.#waiting.size >= this.#o.maxQueued) return Promise.reject(new QrRefused('busy', 1));
    const bucketKey = client ?? 'unknown';
    const step = takeToken(this.#buckets.get(bucketKey), this.#o.rendersPerMinute, nowMs);
    this.#buckets.set(bucketKey, step.state, { ttl: step.msUntilFull });
    if (!step.decision.allowed) return Promise.reject(new QrRefused('rate_limited', step.decision.retryAfterSeconds));
    const drawing = this.#draw(format, text).then((body) => {
      const image: QrImage = { contentType: QR_CONTENT_TYPES[format], body: typeof body === 'string' ? body : Buffer.from(body) };
      this.#cache.set(key, image);
      return image;
    });
    this.#drawing.set(key, drawing);
    const done = (): void => void this.#drawing.delete(key);
    drawing.then(done, done);
    return drawing;
  }

  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = null;
    if (w) await w.terminate();
  }

  #draw(format: QrFormat, text: string): Promise<string | Uint8Array> {
    const worker = this.#worker ?? this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage({ id, format, text } satisfies QrJob);
    });
  }

  #start(): Worker {
    // From the .ts source (tsx, vitest) the worker registers tsx's loader before loading its module.
    const load = WORKER_URL.pathname.endsWith('.ts')
      ? `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`
      : `import(${JSON.stringify(WORKER_URL.href)})`;
    const worker = new Worker(load, { eval: true });
    worker.unref();
    worker.on('message', (r: QrJobResult) => {
      const w = this.#waiting.get(r.id);
      if (!w) return;
      this.#waiting.delete(r.id);
      this.drawn++;
      if (r.ok) w.resolve(r.body);
      else w.reject(new Error(`QR drawing failed: ${r.message}`));
    });
    const failAll = (err: Error): void => {
      if (this.#worker === worker) this.#worker = null;
      for (const w of this.#waiting.values()) w.reject(err);
      this.#waiting.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`QR worker exited (${code})`)));
    this.#worker = worker;
    return worker;
  }
}
