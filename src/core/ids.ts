import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn a pool at a time, as crypto.randomUUID does: one call into the system
 * generator per 4 KiB instead of one per id, which was a tenth of a 100-lead batch's own work.
 */
const pool = Buffer.alloc(4096);
let drawn = pool.length;

function randomByte(): number {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  return pool[drawn++] as number;
}

/** Random base62 text; `length` characters carry length × 5.95 bits of entropy. */
export function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniform (256 is not a multiple of 62).
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** `bytes` CSPRNG bytes as lower-case hex (2 characters a byte), drawn from the same pool. */
export function randomHex(bytes: number): string {
  let out = '';
  for (let i = 0; i < bytes; i++) out += (randomByte() + 0x100).toString(16).slice(1);
  return out;
}

/** A new public id such as `lead_3fK9…`: 16 base62 characters (~95 bits). */
export const newId = (prefix: string): string => `${prefix}_${randomBase62(16)}`;

/** Base62 of `n`, left-padded to `width` characters (so text order is number order). */
function base62(n: number, width: number): string {
  let out = '';
  for (let v = Math.floor(n); v > 0; v = Math.floor(v / 62)) out = ALPHABET[v % 62] + out;
  return out.padStart(width, '0').slice(-width);
}

/**
 * A new id shaped like `newId`'s (16 base62 characters), whose first 7 encode the wall-clock
 * millisecond (until 2081) and the other 9 are random (~54 bits). For rows written on every send
 * and kept (activity, messages, intents, webhook events): a random id lands each insert on a
 * random page of the table's unique index, so every commit wrote one more page per row; ids in
 * time order append to the index's last page.
 */
export const newSortableId = (prefix: string, now: number = Date.now()): string => `${prefix}_${base62(now, 7)}${randomBase62(9)}`;

/** Path ids are well-formed when they match this (self-hosting.md, Validation errors). */
export const PATH_ID = /^[A-Za-z0-9_-]{1,64}$/;
