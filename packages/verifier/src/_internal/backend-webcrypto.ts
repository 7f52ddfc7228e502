import { keyCache, messageBytes, type Ed25519Backend } from './backend-types.js';

const ALGORITHM = { name: 'Ed25519' } as const;
const cached = keyCache<Promise<CryptoKey>>();

// RFC 8032 test 1 (empty message): used once to learn whether crypto.subtle really supports Ed25519.
const hex = (text: string) => Uint8Array.from(text.match(/../g)!, (b) => Number.parseInt(b, 16));
const PROBE_KEY = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const PROBE_SIG =
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';

let support: Promise<boolean> | undefined;

/** @internal True when `crypto.subtle` verifies Ed25519 (Chromium 137+, Electron 37+, Node 20+, Firefox, Safari 17+). */
export function webCryptoSupportsEd25519(): Promise<boolean> {
  support ??= (async () => {
    try {
      const subtle = globalThis.crypto?.subtle;
      if (subtle === undefined) return false;
      const key = await subtle.importKey('raw', hex(PROBE_KEY), ALGORITHM, false, ['verify']);
      return await subtle.verify(ALGORITHM, key, hex(PROBE_SIG), new Uint8Array(0));
    } catch {
      return false;
    }
  })();
  return support;
}

/** @internal Ed25519 through WebCrypto (`crypto.subtle`); imported CryptoKeys are cached. */
export const webCryptoBackend: Ed25519Backend = {
  name: 'webcrypto',
  async verify(publicKey, publicKeyText, signature, message) {
    const subtle = globalThis.crypto.subtle;
    const key = cached(publicKeyText, () => subtle.importKey('raw', publicKey as Uint8Array<ArrayBuffer>, ALGORITHM, false, ['verify']));
    return subtle.verify(ALGORITHM, await key, signature as Uint8Array<ArrayBuffer>, messageBytes(message) as Uint8Array<ArrayBuffer>);
  },
};
