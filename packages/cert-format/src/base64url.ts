const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP = /* @__PURE__ */ (() => {
  const table = new Int16Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

/**
 * Encodes bytes as base64url without padding (RFC 4648 §5). Works in every runtime (no `Buffer`).
 *
 * @example
 * ```ts
 * base64urlEncode(new Uint8Array([251, 255])); // '-_8'
 * ```
 */
export function base64urlEncode(bytes: Uint8Array): string {
  let out = '';
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + ALPHABET[(v >> 6) & 63]! + ALPHABET[v & 63]!;
  }
  if (n - i === 1) {
    const v = bytes[i]! << 16;
    out += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]!;
  } else if (n - i === 2) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + ALPHABET[(v >> 6) & 63]!;
  }
  return out;
}

/**
 * Decodes strict base64url without padding: only `A-Z a-z 0-9 - _`, no `=`, no whitespace, and the
 * unused low bits of the last character must be zero (one text per byte string). Returns `undefined`
 * for anything else; never throws.
 *
 * @example
 * ```ts
 * base64urlDecode('-_8'); // Uint8Array [251, 255]
 * base64urlDecode('-_8='); // undefined (padding is not accepted)
 * ```
 */
export function base64urlDecode(text: string): Uint8Array | undefined {
  if (typeof text !== 'string') return undefined;
  const n = text.length;
  const rest = n % 4;
  if (rest === 1) return undefined;
  const full = n - rest;
  const out = new Uint8Array((full / 4) * 3 + (rest === 0 ? 0 : rest - 1));
  let o = 0;
  for (let i = 0; i < full; i += 4) {
    const ca = text.charCodeAt(i);
    const cb = text.charCodeAt(i + 1);
    const cc = text.charCodeAt(i + 2);
    const cd = text.charCodeAt(i + 3);
    if ((ca | cb | cc | cd) > 127) return undefined;
    const a = LOOKUP[ca]!;
    const b = LOOKUP[cb]!;
    const c = LOOKUP[cc]!;
    const d = LOOKUP[cd]!;
    if ((a | b | c | d) < 0) return undefined;
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = v >> 16;
    out[o++] = (v >> 8) & 255;
    out[o++] = v & 255;
  }
  if (rest === 0) return out;
  const ca = text.charCodeAt(full);
  const cb = text.charCodeAt(full + 1);
  const cc = rest === 3 ? text.charCodeAt(full + 2) : 65; // 'A' = 0
  if ((ca | cb | cc) > 127) return undefined;
  const a = LOOKUP[ca]!;
  const b = LOOKUP[cb]!;
  const c = LOOKUP[cc]!;
  if ((a | b | c) < 0) return undefined;
  out[o++] = (a << 2) | (b >> 4);
  if (rest === 2) return (b & 15) === 0 ? out : undefined; // unused low bits must be zero
  out[o] = ((b & 15) << 4) | (c >> 2);
  return (c & 3) === 0 ? out : undefined;
}
