// Invariant: an IPv4 address in dotted-quad text is read by one pass over its characters, with
// exactly the rule node:net's isIPv4 applies (four decimal parts 0-255, no leading zeros, nothing
// else), into its 32-bit value; anything else is -1. The redirect path reads every client address
// this way instead of a regular expression and a split, and the write path keys its address
// dictionary by the value, so an address costs no string hashing.

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
