// Invariant: an event id is a UUIDv7 (RFC 9562): 48 bits of the click's millisecond, version 7,
// 12 random bits, variant 10, 62 random bits, the random bits drawn from node:crypto. Ids are
// minted in bulk, 16 bytes a row in RFC byte order, when a batch of hits is formed (one
// randomFillSync per batch); their text (8-4-4-4-12 lower-case hex) is written only where an
// event leaves as text (the spool, tests). Text read back is checked digit by digit.
import { randomFillSync } from 'node:crypto';

export const EVENT_ID_BYTES = 16;

const HEX_DIGITS = '0123456789abcdef';
/** A byte's two hex digits, by byte value. */
const BYTE_HEX = Array.from({ length: 256 }, (_, b) => `${HEX_DIGITS[b >> 4]}${HEX_DIGITS[b & 15]}`);
/** A character code's value as a hex digit, or -1. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUE[HEX_DIGITS.charCodeAt(i)] = i;
  HEX_VALUE[HEX_DIGITS.toUpperCase().charCodeAt(i)] = i;
}
/** Character offsets of the 16 bytes in the canonical 36-character text. */
const TEXT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/**
 * Writes the ids of `rows` events into `out` (16 bytes each, from `out`'s start): UUIDv7s of the
 * milliseconds of their click times (`micros`, microseconds since the epoch).
 */
export function mintEventIds(micros: ArrayLike<number>, rows: number, out: Uint8Array): void {
  randomFillSync(out, 0, rows * EVENT_ID_BYTES);
  for (let i = 0, p = 0; i < rows; i++, p += EVENT_ID_BYTES) {
    const ms = Math.floor((micros[i] as number) / 1000);
    const high = Math.floor(ms / 0x1_0000_0000);
    const low = ms - high * 0x1_0000_0000;
    out[p] = (high >>> 8) & 0xff;
    out[p + 1] = high & 0xff;
    out[p + 2] = low >>> 24;
    out[p + 3] = (low >>> 16) & 0xff;
    out[p + 4] = (low >>> 8) & 0xff;
    out[p + 5] = low & 0xff;
    out[p + 6] = 0x70 | ((out[p + 6] as number) & 0x0f);
    out[p + 8] = 0x80 | ((out[p + 8] as number) & 0x3f);
  }
}

/** The canonical text of the id at byte offset `at` of `bytes`. */
export function eventIdText(bytes: Uint8Array, at: number): string {
  const h = (k: number): string => BYTE_HEX[bytes[at + k] as number] as string;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

/** Writes the id `text` (8-4-4-4-12 hex, either case) as 16 bytes at `at`; false when it is no UUID. */
export function writeEventId(text: string, out: Uint8Array, at: number): boolean {
  if (text.length !== 36 || text[8] !== '-' || text[13] !== '-' || text[18] !== '-' || text[23] !== '-') return false;
  for (let k = 0; k < EVENT_ID_BYTES; k++) {
    const c = TEXT_AT[k] as number;
    const hi = HEX_VALUE[text.charCodeAt(c)] ?? -1;
    const lo = HEX_VALUE[text.charCodeAt(c + 1)] ?? -1;
    if (hi < 0 || lo < 0) return false;
    out[at + k] = (hi << 4) | lo;
  }
  return true;
}
