/** The Ed25519 implementations the verifier can use. */
export type BackendName = 'node' | 'webcrypto' | 'noble';

/** @internal One Ed25519 verification implementation; public keys are cached by their base64url text. */
export interface Ed25519Backend {
  readonly name: BackendName;
  /** True when `signature` is a valid signature of the ASCII text `message` by `publicKey` (32 raw bytes). */
  verify(publicKey: Uint8Array, publicKeyText: string, signature: Uint8Array, message: string): Promise<boolean> | boolean;
}

/** @internal A small cache of imported keys; cleared when it grows past `max` entries. */
export function keyCache<T>(max = 64): (text: string, create: () => T) => T {
  const cache = new Map<string, T>();
  return (text, create) => {
    let value = cache.get(text);
    if (value === undefined) {
      if (cache.size >= max) cache.clear();
      value = create();
      cache.set(text, value);
    }
    return value;
  };
}

const encoder = /* @__PURE__ */ new TextEncoder();
/**
 * @internal UTF-8 bytes of the signing input. Signing inputs are ASCII once rule 1 has passed (a
 * prefix and base64url), so the bytes are written into a buffer of exactly the text's length:
 * `encode` would reserve three bytes per character and copy, which costs milliseconds for the
 * 1.8 MB signing input of a 100,000-entry revocation list. Anything else falls back to `encode`.
 */
export const messageBytes = (message: string): Uint8Array => {
  const bytes = new Uint8Array(message.length);
  const { read, written } = encoder.encodeInto(message, bytes);
  return read === message.length && written === message.length ? bytes : encoder.encode(message);
};
