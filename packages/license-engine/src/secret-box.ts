import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretBox } from './ports.js';

const VERSION = 'v1';

/**
 * Creates the secret box that encrypts secrets at rest (private signing keys, license keys,
 * integration secrets): AES-256-GCM with a random 96-bit nonce per secret, via node:crypto.
 * Ciphertext form: `v1.<base64url(nonce | ciphertext | tag)>`. Decrypting tampered text, or
 * text sealed under another master key, throws.
 *
 * @example
 * ```ts
 * const secrets = createSecretBox(masterKey); // 32 bytes, from the host's configuration
 * const sealed = secrets.encrypt(new TextEncoder().encode('seed'));
 * secrets.decrypt(sealed); // the same bytes
 * ```
 */
export function createSecretBox(masterKey: Uint8Array): SecretBox {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== 32) {
    throw new TypeError(`expected a 32-byte master key, got ${masterKey instanceof Uint8Array ? `${masterKey.length} bytes` : typeof masterKey}`);
  }
  const key = Buffer.from(masterKey);
  return {
    encrypt(plaintext: Uint8Array): string {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return `${VERSION}.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')}`;
    },
    decrypt(ciphertext: string): Uint8Array {
      const [version, data, extra] = ciphertext.split('.');
      if (version !== VERSION || data === undefined || extra !== undefined) throw new Error('not a secret-box ciphertext');
      const raw = Buffer.from(data, 'base64url');
      if (raw.length < 28) throw new Error('secret-box ciphertext too short');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return new Uint8Array(Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]));
    },
  };
}
