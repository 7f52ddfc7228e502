import type { Ed25519Backend } from './backend-types.js';
import { messageBytes } from './backend-types.js';

type Noble = typeof import('@noble/ed25519');
let noble: Promise<Noble> | undefined;

// Loaded lazily: runtimes with WebCrypto Ed25519 or node:crypto never download it.
function loadNoble(): Promise<Noble> {
  noble ??= Promise.all([import('@noble/ed25519'), import('@noble/hashes/sha2.js')]).then(([ed, { sha512 }]) => {
    ed.hashes.sha512 = sha512; // sync verify, no crypto.subtle needed (works in insecure contexts too)
    return ed;
  });
  return noble;
}

/** @internal Pure-JavaScript Ed25519 (@noble/ed25519), strict RFC 8032 checks like OpenSSL. */
export const nobleBackend: Ed25519Backend = {
  name: 'noble',
  async verify(publicKey, _publicKeyText, signature, message) {
    const ed = await loadNoble();
    try {
      return ed.verify(signature, messageBytes(message), publicKey, { zip215: false });
    } catch {
      return false;
    }
  },
};
