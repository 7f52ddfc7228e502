import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { keyCache, type Ed25519Backend } from './backend-types.js';

// Replaced by backend-node.browser.ts in the browser build (no node: built-ins there).
const cached = keyCache<KeyObject>();

/** @internal Ed25519 through node:crypto (OpenSSL); undefined outside Node. */
export function nodeBackend(): Ed25519Backend | undefined {
  return backend;
}

const backend: Ed25519Backend = {
  name: 'node',
  verify(_publicKey, publicKeyText, signature, message) {
    const key = cached(publicKeyText, () =>
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKeyText }, format: 'jwk' }),
    );
    return verify(null, Buffer.from(message, 'latin1'), key, signature);
  },
};
