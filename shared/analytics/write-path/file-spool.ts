// Invariant: the file spool (embedded mode) is a directory of append-only NDJSON segment files,
// one batch per line, written by one process. A line is fsync'd before append() resolves. New
// batches go to the newest (active) segment; peek() seals a non-empty active segment so every
// spooled batch becomes readable, and segments are never appended to after sealing or after a
// restart. A segment file is deleted (and the directory fsync'd) once every batch in it is
// acknowledged. A torn last line (crash mid-write) is skipped, not fatal.
import { mkdir, open, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventSpool, SpoolEntry, SpooledBatch } from './event-spool.ts';

const SEGMENT = /^segment-(\d{12})\.ndjson$/;
const segmentName = (seq: number): string => `segment-${String(seq).padStart(12, '0')}.ndjson`;

export interface FileSpoolOptions {
  /** Rotate the active segment beyond this size. Default 16 MiB. */
  maxSegmentBytes?: number;
}

interface ReadSegment {
  entries: SpoolEntry[];
  acked: Set<number>;
}

function isSpooledBatch(v: unknown): v is SpooledBatch {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return typeof o.token === 'string' && Array.isArray(o.records);
}

export class FileSpool implements EventSpool {
  readonly description: string;
  private readonly maxSegmentBytes: number;
  /** Sealed segment numbers, ascending. */
  private sealed: number[] = [];
  private active: { seq: number; handle: FileHandle; bytes: number } | null = null;
  private nextSeq = 1;
  appendedBytes = 0;
  private readonly readSegments = new Map<number, ReadSegment>();
  /** Serialises every mutation of the directory. */
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Lines that could not be parsed (torn writes). */
  corruptLines = 0;

  private constructor(
    readonly dir: string,
    options: FileSpoolOptions,
  ) {
    this.description = `file-spool:${dir}`;
    this.maxSegmentBytes = options.maxSegmentBytes ?? 16 * 1024 * 1024;
  }

  /** Opens (creating) the spool directory; segments left by an earlier process are sealed. */
  static async open(dir: string, options: FileSpoolOptions = {}): Promise<FileSpool> {
    await mkdir(dir, { recursive: true });
    const spool = new FileSpool(dir, options);
    const seqs = (await readdir(dir))
      .map((f) => SEGMENT.exec(f)?.[1])
      .filter((s): s is string => s !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    spool.sealed = seqs;
    spool.nextSeq = (seqs.at(-1) ?? 0) + 1;
    return spool;
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.chain.then(f, f);
    this.chain = run.catch(() => undefined);
    return run;
  }

  append(batch: SpooledBatch): Promise<void> {
    return this.serial(async () => {
      this.assertOpen();
      const line = Buffer.from(`${JSON.stringify(batch)}\n`, 'utf8');
      if (this.active && this.active.bytes > 0 && this.active.bytes + line.length > this.maxSegmentBytes) await this.sealActive();
      if (!this.active) {
        const seq = this.nextSeq++;
        const handle = await open(join(this.dir, segmentName(seq)), 'a');
        this.active = { seq, handle, bytes: 0 };
        await this.syncDir();
      }
      await this.active.handle.appendFile(line);
      await this.active.handle.datasync();
      this.active.bytes += line.length;
      this.appendedBytes += line.length;
    });
  }

  peek(max: number): Promise<SpoolEntry[]> {
    return this.serial(async () => {
      this.assertOpen();
      if (this.active && this.active.bytes > 0) await this.sealActive();
      const out: SpoolEntry[] = [];
      for (const seq of this.sealed) {
        if (out.length >= max) break;
        const seg = await this.readSegment(seq);
        for (const [i, e] of seg.entries.entries()) {
          if (out.length >= max) break;
          if (!seg.acked.has(i)) out.push(e);
        }
      }
      return out;
    });
  }

  ack(id: string): Promise<void> {
    return this.serial(async () => {
      const m = /^(\d+):(\d+)$/.exec(id);
      if (!m) return;
      const [seq, index] = [Number(m[1]), Number(m[2])];
      const seg = this.readSegments.get(seq);
      if (!seg || index >= seg.entries.length) return;
      seg.acked.add(index);
      if (seg.acked.size === seg.entries.length) await this.removeSegment(seq);
    });
  }

  size(): Promise<number> {
    return this.serial(async () => {
      let n = 0;
      for (const seq of this.sealed) {
        const seg = await this.readSegment(seq);
        n += seg.entries.length - seg.acked.size;
      }
      if (this.active && this.active.bytes > 0) n += (await this.readLines(this.active.seq)).entries.length;
      return n;
    });
  }

  close(): Promise<void> {
    return this.serial(async () => {
      if (this.closed) return;
      this.closed = true;
      if (this.active) {
        await this.active.handle.close();
        this.active = null;
      }
    });
  }

  private async sealActive(): Promise<void> {
    if (!this.active) return;
    await this.active.handle.close();
    this.sealed.push(this.active.seq);
    this.active = null;
  }

  private async readSegment(seq: number): Promise<ReadSegment> {
    let seg = this.readSegments.get(seq);
    if (!seg) {
      seg = await this.readLines(seq);
      this.readSegments.set(seq, seg);
      // A segment whose every line was torn holds nothing.
      if (seg.entries.length === 0) await this.removeSegment(seq);
    }
    return seg;
  }

  private async readLines(seq: number): Promise<ReadSegment> {
    let text: string;
    try {
      text = await readFile(join(this.dir, segmentName(seq)), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], acked: new Set() };
      throw err;
    }
    const entries: SpoolEntry[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        parsed = null;
      }
      if (!isSpooledBatch(parsed)) {
        this.corruptLines++;
        continue;
      }
      entries.push({ id: `${seq}:${entries.length}`, batch: parsed });
    }
    return { entries, acked: new Set() };
  }

  private async removeSegment(seq: number): Promise<void> {
    try {
      await unlink(join(this.dir, segmentName(seq)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await this.syncDir();
    this.sealed = this.sealed.filter((s) => s !== seq);
    this.readSegments.delete(seq);
  }

  private async syncDir(): Promise<void> {
    const handle = await open(this.dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`${this.description} is closed`);
  }
}
