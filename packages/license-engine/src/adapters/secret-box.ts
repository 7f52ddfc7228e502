import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { base64urlDecode, base64urlEncode } from '@svc-licensing/cert-format';
import type { SealedFor, SealPurpose, SecretBox } from '../_internal/ports.js';

const PURPOSES: readonly SealPurpose[] = ['operator-link', 'cursor', 'license-key', 'signing-key', 'dkim-key', 'webhook-secret', 'provider-api-key', 'notification-secret'];
/**
 * Purposes whose values were stored before sealing was bound to a purpose (`v1.`: the master key
 * itself, no associated data). Such a value is still opened, but only for the purpose and column it
 * was written to; operator links and cursors come from outside and must be `v2.`.
 */
const STORED_BEFORE_V2: ReadonlySet<SealPurpose> = new Set(['license-key', 'signing-key', 'dkim-key', 'webhook-secret', 'provider-api-key']);
const SALT = Buffer.from('svc-licensing secret box v2', 'utf8');
const NONCE = 12;
const TAG = 16;

/** The associated data of a v2 ciphertext: its purpose and record, unambiguously joined. */
const associatedData = (sealedFor: SealedFor) => Buffer.from(JSON.stringify([sealedFor.purpose, sealedFor.record]), 'utf8');

/**
 * Creates the secret box that encrypts secrets at rest (private signing keys, license keys,
 * integration secrets, DKIM keys) and seals opaque tokens (operator sign-in links, list cursors):
 * AES-256-GCM via node:crypto, under a key derived per purpose from the master key (HKDF-SHA-256),
 * with the purpose and the record's ID as associated data and a random 96-bit nonce per value.
 * Ciphertext form: `v2.<base64url(nonce | ciphertext | tag)>`. Opening tampered text, text sealed
 * under another master key, for another purpose or for another record throws. `v1.` values (sealed
 * with the master key itself before purposes existed) open only for the stored purposes they were
 * written for, never as an operator link or a cursor.
 *
 * @example
 * ```ts
 * const secrets = createSecretBox(masterKey); // 32 bytes, from the host's configuration
 * const sealed = secrets.encrypt(new TextEncoder().encode('whsec_...'), { purpose: 'webhook-secret', record: 'int_01...' });
 * secrets.decrypt(sealed, { purpose: 'webhook-secret', record: 'int_01...' }); // the same bytes
 * secrets.decrypt(sealed, { purpose: 'operator-link', record: '' }); // throws
 * ```
 */
export function createSecretBox(masterKey: Uint8Array): SecretBox {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== 32) {
    throw new TypeError(`expected a 32-byte master key, got ${masterKey instanceof Uint8Array ? `${masterKey.length} bytes` : typeof masterKey}`);
  }
  const legacyKey = Buffer.from(masterKey);
  const keys = new Map(PURPOSES.map((purpose) => [purpose, Buffer.from(hkdfSync('sha256', masterKey, SALT, `svc-licensing/${purpose}`, 32))]));
  const keyOf = (sealedFor: SealedFor): Buffer => {
    const key = keys.get(sealedFor?.purpose);
    if (!key || typeof sealedFor.record !== 'string') throw new TypeError(`expected { purpose, record } with a known purpose, got ${JSON.stringify(sealedFor)}`);
    return key;
  };
  return {
    encrypt(plaintext: Uint8Array, sealedFor: SealedFor): string {
      const key = keyOf(sealedFor);
      const nonce = randomBytes(NONCE);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(associatedData(sealedFor));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return `v2.${base64urlEncode(Buffer.concat([nonce, body, cipher.getAuthTag()]))}`;
    },
    decrypt(ciphertext: string, sealedFor: SealedFor): Uint8Array {
      const key = keyOf(sealedFor);
      const [version, data, extra] = typeof ciphertext === 'string' ? ciphertext.split('.') : [];
      if (data === undefined || extra !== undefined) throw new Error('not a secret-box ciphertext');
      const legacy = version === 'v1' && STORED_BEFORE_V2.has(sealedFor.purpose);
      if (version !== 'v2' && !legacy) throw new Error(`not a secret-box ciphertext for ${sealedFor.purpose}`);
      // Strict base64url: one spelling per ciphertext, so no other text opens to the same value.
      const raw = base64urlDecode(data);
      if (raw === undefined || raw.length < NONCE + TAG) throw new Error('not a secret-box ciphertext');
      const decipher = createDecipheriv('aes-256-gcm', legacy ? legacyKey : key, raw.subarray(0, NONCE));
      if (!legacy) decipher.setAAD(associatedData(sealedFor));
      decipher.setAuthTag(raw.subarray(raw.length - TAG));
      return new Uint8Array(Buffer.concat([decipher.update(raw.subarray(NONCE, raw.length - TAG)), decipher.final()]));
    },
  };
}
