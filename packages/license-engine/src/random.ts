import type { Random } from './ports.js';

/**
 * The real random source: `globalThis.crypto.getRandomValues` (Web Crypto, built into Node 20).
 *
 * @example
 * ```ts
 * const sixteenBytes = cryptoRandom.bytes(16);
 * ```
 */
export const cryptoRandom: Random = {
  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    // getRandomValues fills at most 65,536 bytes per call.
    for (let offset = 0; offset < length; offset += 65_536) {
      globalThis.crypto.getRandomValues(out.subarray(offset, Math.min(length, offset + 65_536)));
    }
    return out;
  },
};
