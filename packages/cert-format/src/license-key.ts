import { CertFormatError } from './errors.js';
import { sha256Hex } from './_internal/sha256.js';

/**
 * The 30 characters of generated license-key groups: digits 2–9 and the uppercase letters without
 * I, L, O and U, so no two characters are easily confused (0/O, 1/I/L) when read out or typed.
 *
 * @example
 * ```ts
 * LICENSE_KEY_ALPHABET.length; // 30
 * ```
 */
export const LICENSE_KEY_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Number of groups after the product's `keyPrefix`.
 *
 * @example
 * ```ts
 * generateLicenseKey('').split('-').length === LICENSE_KEY_GROUPS; // true
 * ```
 */
export const LICENSE_KEY_GROUPS = 4;
/**
 * Characters per group.
 *
 * @example
 * ```ts
 * generateLicenseKey('').split('-')[0].length === LICENSE_KEY_GROUP_LENGTH; // true
 * ```
 */
export const LICENSE_KEY_GROUP_LENGTH = 5;

const SIZE = LICENSE_KEY_ALPHABET.length; // 30
const LIMIT = 256 - (256 % SIZE); // 240: bytes at or above are rejected, so each character is uniform
const SUFFIX = new RegExp(`^(.*?)[${LICENSE_KEY_ALPHABET}]{5}(-[${LICENSE_KEY_ALPHABET}]{5}){3}$`, 's');
const WHITESPACE = /\s+/g;
/** Anything `normalizeLicenseKey` would change: a key typed as issued skips both replacements. */
const DENORMALIZED = /[\sa-z]/;

const defaultRandomBytes = (n: number): Uint8Array => globalThis.crypto.getRandomValues(new Uint8Array(n));

/**
 * Generates a license key: `keyPrefix` immediately followed by four hyphen-separated groups of five
 * characters from {@link LICENSE_KEY_ALPHABET}, drawn uniformly (rejection sampling) from a CSPRNG
 * (`crypto.getRandomValues` unless `randomBytes` is given). About 98 bits of entropy.
 *
 * @example
 * ```ts
 * generateLicenseKey('ACME-'); // 'ACME-7KQ2M-XW9FD-3NHPZ-TB4RC'
 * ```
 */
export function generateLicenseKey(keyPrefix: string, randomBytes: (n: number) => Uint8Array = defaultRandomBytes): string {
  if (typeof keyPrefix !== 'string') throw new CertFormatError('invalid_argument', 'keyPrefix must be a string');
  const total = LICENSE_KEY_GROUPS * LICENSE_KEY_GROUP_LENGTH;
  const chars: string[] = [];
  while (chars.length < total) {
    const bytes = randomBytes(total - chars.length + 8);
    if (!(bytes instanceof Uint8Array)) throw new CertFormatError('invalid_argument', 'randomBytes must return a Uint8Array');
    for (const byte of bytes) {
      if (byte < LIMIT && chars.length < total) chars.push(LICENSE_KEY_ALPHABET[byte % SIZE]!);
    }
  }
  const groups: string[] = [];
  for (let g = 0; g < LICENSE_KEY_GROUPS; g++) {
    groups.push(chars.slice(g * LICENSE_KEY_GROUP_LENGTH, (g + 1) * LICENSE_KEY_GROUP_LENGTH).join(''));
  }
  return keyPrefix + groups.join('-');
}

/**
 * The normalized form of a license key, used for lookup and hashing: every whitespace character
 * (JavaScript `\s`) removed and ASCII letters a–z uppercased; nothing else changes (hyphens stay).
 *
 * @example
 * ```ts
 * normalizeLicenseKey(' acme-7kq2m-xw9fd 3nhpz-tb4rc '); // 'ACME-7KQ2M-XW9FD3NHPZ-TB4RC'
 * normalizeLicenseKey('acme-7kq2m - xw9fd-3nhpz-tb4rc'); // 'ACME-7KQ2M-XW9FD-3NHPZ-TB4RC'
 * ```
 */
export function normalizeLicenseKey(input: string): string {
  if (typeof input !== 'string') throw new CertFormatError('invalid_argument', 'license key must be a string');
  if (!DENORMALIZED.test(input)) return input;
  return input.replace(WHITESPACE, '').replace(/[a-z]+/g, (s) => s.toUpperCase());
}

/**
 * The lookup hash of a license key: lowercase hex SHA-256 of the UTF-8 bytes of its normalized form
 * ({@link normalizeLicenseKey}). Store this, never the key.
 *
 * @example
 * ```ts
 * hashLicenseKey('acme-7kq2m-xw9fd-3nhpz-tb4rc') === hashLicenseKey('ACME-7KQ2M-XW9FD-3NHPZ-TB4RC'); // true
 * ```
 */
export function hashLicenseKey(input: string): string {
  return sha256Hex(normalizeLicenseKey(input));
}

/**
 * True when the normalized input has the shape of a license key: a prefix of at most 32 printable
 * ASCII characters, then four hyphen-separated groups of five characters of the key alphabet.
 * Whether the prefix is the product's `keyPrefix` is for the caller to check.
 *
 * @example
 * ```ts
 * isWellFormedLicenseKey('acme-7kq2m-xw9fd-3nhpz-tb4rc'); // true
 * isWellFormedLicenseKey('ACME-7KQ2M-XW9FD-3NHPZ'); // false (three groups)
 * ```
 */
export function isWellFormedLicenseKey(input: unknown): boolean {
  if (typeof input !== 'string' || input.length > 256) return false;
  const match = SUFFIX.exec(normalizeLicenseKey(input));
  if (match === null) return false;
  const prefix = match[1]!;
  return prefix.length <= 32 && /^[\x21-\x7e]*$/.test(prefix);
}
