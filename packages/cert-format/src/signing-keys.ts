import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { CertFormatError } from './errors.js';

// DER prefix of an Ed25519 PKCS#8 PrivateKeyInfo (RFC 8410) whose last 32 bytes are the seed.
const PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

/** A signing private key: the raw 32-byte Ed25519 seed, or its PKCS#8 DER encoding. */
export type SigningPrivateKey = Uint8Array | { pkcs8: Uint8Array };

const fromB64url = (text: string | undefined): Uint8Array => new Uint8Array(Buffer.from(text ?? '', 'base64url'));

/**
 * Wraps a raw 32-byte Ed25519 seed in PKCS#8 DER (RFC 8410), the form `node:crypto` and the key
 * export (`privateKeyPkcs8`) use.
 *
 * @example
 * ```ts
 * const der = seedToPkcs8(seed); // 48 bytes
 * ```
 */
export function seedToPkcs8(seed: Uint8Array): Uint8Array {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) {
    throw new CertFormatError('invalid_private_key', `expected a 32-byte Ed25519 seed, got ${describe(seed)}`);
  }
  const der = new Uint8Array(48);
  der.set(PKCS8_PREFIX, 0);
  der.set(seed, 16);
  return der;
}

/**
 * Extracts the raw 32-byte seed from Ed25519 PKCS#8 DER. Throws `invalid_private_key` for anything
 * that is not an Ed25519 private key.
 *
 * @example
 * ```ts
 * pkcs8ToSeed(seedToPkcs8(seed)); // equal to seed
 * ```
 */
export function pkcs8ToSeed(der: Uint8Array): Uint8Array {
  const key = importPrivateKey({ pkcs8: der });
  return fromB64url(key.export({ format: 'jwk' }).d);
}

/**
 * The raw 32-byte Ed25519 public key of a seed (what certificates are verified with).
 *
 * @example
 * ```ts
 * const publicKey = publicKeyFromSeed(seed); // Uint8Array(32)
 * ```
 */
export function publicKeyFromSeed(seed: Uint8Array): Uint8Array {
  return fromB64url(createPublicKey(importPrivateKey(seed)).export({ format: 'jwk' }).x);
}

/**
 * A new Ed25519 signing key pair from the operating system's CSPRNG.
 *
 * @example
 * ```ts
 * const { seed, publicKey } = generateSigningKeyPair();
 * ```
 */
export function generateSigningKeyPair(): { seed: Uint8Array; publicKey: Uint8Array } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { seed: fromB64url(jwk.d), publicKey: fromB64url(jwk.x) };
}

/** @internal Imports a seed or PKCS#8 DER as a node:crypto Ed25519 private KeyObject. */
export function importPrivateKey(privateKey: SigningPrivateKey): KeyObject {
  let der: Uint8Array;
  if (privateKey instanceof Uint8Array) der = seedToPkcs8(privateKey);
  else if (typeof privateKey === 'object' && privateKey !== null && privateKey.pkcs8 instanceof Uint8Array) der = privateKey.pkcs8;
  else throw new CertFormatError('invalid_private_key', `expected a 32-byte seed or { pkcs8 }, got ${describe(privateKey)}`);
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'pkcs8' });
  } catch {
    throw new CertFormatError('invalid_private_key', 'PKCS#8 DER could not be parsed');
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new CertFormatError('invalid_private_key', `expected an Ed25519 key, got ${String(key.asymmetricKeyType)}`);
  }
  return key;
}

function describe(value: unknown): string {
  if (value instanceof Uint8Array) return `Uint8Array of length ${value.length}`;
  return value === null ? 'null' : typeof value;
}
