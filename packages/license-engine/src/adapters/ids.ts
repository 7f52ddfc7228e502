import type { Clock, IdGenerator, IdPrefix, Random } from '../_internal/ports.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase: sorts like the numbers it encodes

/**
 * Creates the ID generator: `<prefix>_` + 26 Crockford base32 characters (48-bit millisecond time,
 * then 80 random bits), so IDs sort by creation time. Within one millisecond (or when the clock
 * steps back) the random part is incremented, so IDs from one generator are strictly increasing.
 *
 * @example
 * ```ts
 * const ids = createIdGenerator({ clock: systemClock, random: cryptoRandom });
 * ids.next('lic'); // 'lic_01jd8x2k7m0000000000000000' (shape)
 * ```
 */
export function createIdGenerator(deps: { clock: Clock; random: Random }): IdGenerator {
  let lastTime = -1;
  let lastRandom: Uint8Array = new Uint8Array(10);
  return {
    next(prefix: IdPrefix): string {
      let time = Math.floor(deps.clock.now());
      if (time <= lastTime) {
        time = lastTime;
        lastRandom = increment(lastRandom);
      } else {
        lastTime = time;
        lastRandom = deps.random.bytes(10).slice(0, 10);
      }
      return `${prefix}_${encodeTime(time)}${encodeBits(lastRandom)}`;
    },
  };
}

function encodeTime(time: number): string {
  let out = '';
  let rest = time;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function encodeBits(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = bytes.slice();
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] === 255) next[i] = 0;
    else {
      next[i] = (next[i] ?? 0) + 1;
      return next;
    }
  }
  throw new Error('id random part overflowed within one millisecond');
}
