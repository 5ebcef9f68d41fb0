// Invariant: an IPv4 address in dotted-quad text is read by one pass over its characters, with
// exactly the rule node:net's isIPv4 applies (four decimal parts 0-255, no leading zeros, nothing
// else), into its 32-bit value; anything else is -1. The redirect path reads every client address
// this way instead of a regular expression and a split, and the write path keys its address
// dictionary by the value, so an address costs no string hashing. The other way, an address's
// raw bytes (IPv4, or IPv4-mapped IPv6) become text through a cache bounded by entries, so a
// returning client's address is formatted once.

/** The value (0 … 2^32 - 1) of a dotted-quad IPv4 address, or -1 when `text` is not one. */
export function ipv4Value(text: string, start = 0, end = text.length): number {
  if (end - start < 7 || end - start > 15) return -1;
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = start; i <= end; i++) {
    const c = i === end ? 46 : text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || parts === 4) return -1;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return -1; // a leading zero
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else return -1;
  }
  return parts === 4 ? value : -1;
}

/**
 * Addresses → dense ids by their IPv4 value: open addressing over typed arrays (no allocation per
 * lookup, no string hashing), grown at half load.
 */
export class Ipv4Ids {
  #keys = new Int32Array(1024);
  /** id + 1 per slot; 0 marks a free slot. */
  #ids = new Int32Array(1024);
  #size = 0;

  /** The id of `value` (an ipv4Value), or `next` after recording it under that id. */
  idOf(value: number, next: number): number {
    const key = value | 0;
    const slot = this.#slotOf(key);
    const id = this.#ids[slot] as number;
    if (id !== 0) return id - 1;
    this.#keys[slot] = key;
    this.#ids[slot] = next + 1;
    if (++this.#size * 2 > this.#keys.length) this.#grow();
    return next;
  }

  /** The slot holding `key`, or the free slot where it belongs (linear probing). */
  #slotOf(key: number): number {
    const mask = this.#keys.length - 1;
    let slot = Math.imul(key, 0x9e3779b1) >>> 0;
    for (;;) {
      slot &= mask;
      if (this.#ids[slot] === 0 || this.#keys[slot] === key) return slot;
      slot++;
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const ids = this.#ids;
    this.#keys = new Int32Array(keys.length * 2);
    this.#ids = new Int32Array(keys.length * 2);
    for (let i = 0; i < keys.length; i++) {
      if (ids[i] === 0) continue;
      const slot = this.#slotOf(keys[i] as number);
      this.#keys[slot] = keys[i] as number;
      this.#ids[slot] = ids[i] as number;
    }
  }
}

const IPV4_TEXT_CACHE_LIMIT = 10_000;
/** Bounded by entries and so by bytes: a key is a number and a value at most 15 characters. */
const ipv4Texts = new Map<number, string>();

function ipv4Text(a: number, b: number, c: number, d: number): string {
  const key = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  let text = ipv4Texts.get(key);
  if (text === undefined) {
    text = `${a}.${b}.${c}.${d}`;
    if (ipv4Texts.size >= IPV4_TEXT_CACHE_LIMIT) ipv4Texts.clear();
    ipv4Texts.set(key, text);
  }
  return text;
}

/** The dotted-quad text of raw address bytes that hold an IPv4 address (4 bytes, or IPv4-mapped 16); null for any other. */
export function ipv4TextOfBytes(b: Uint8Array): string | null {
  if (b.length === 4) return ipv4Text(b[0] ?? 0, b[1] ?? 0, b[2] ?? 0, b[3] ?? 0);
  if (
    b.length === 16 &&
    b[10] === 0xff &&
    b[11] === 0xff &&
    b[0] === 0 &&
    b[1] === 0 &&
    b[2] === 0 &&
    b[3] === 0 &&
    b[4] === 0 &&
    b[5] === 0 &&
    b[6] === 0 &&
    b[7] === 0 &&
    b[8] === 0 &&
    b[9] === 0
  ) {
    return ipv4Text(b[12] ?? 0, b[13] ?? 0, b[14] ?? 0, b[15] ?? 0);
  }
  return null;
}
