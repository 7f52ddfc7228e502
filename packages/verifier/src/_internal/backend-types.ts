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
/** @internal ASCII/UTF-8 bytes of the signing input. */
export const messageBytes = (message: string): Uint8Array => encoder.encode(message);
