/** Ports the engine is pure over; the host wires real ones, tests wire deterministic ones. */

/** The current time. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** A cryptographically secure random source. */
export interface Random {
  bytes(length: number): Uint8Array;
}

/** Creates IDs of the form `<prefix>_<suffix>` whose suffix sorts by creation time. */
export interface IdGenerator {
  next(prefix: IdPrefix): string;
}

export type IdPrefix = 'acc' | 'key' | 'prd' | 'sgk' | 'pln' | 'lic' | 'cus' | 'act' | 'int' | 'pcu' | 'pev' | 'evt' | 'mem' | 'ses' | 'ltk' | 'cse' | 'sdm' | 'wep' | 'msg' | 'rcv' | 'rve';

/** Ciphertext of a secret (AES-256-GCM under a key derived from the host's master key), as produced by the crypto port. */
export type EncryptedSecret = string;

/**
 * What a sealed value is for. The secret box seals each purpose under its own key and binds the
 * ciphertext to the record it belongs to, so a ciphertext of one kind (a webhook secret a vendor
 * chose) never opens as another (an operator sign-in link), nor for another record.
 */
export type SealPurpose =
  | 'operator-link'
  | 'cursor'
  | 'license-key'
  | 'signing-key'
  | 'dkim-key'
  | 'webhook-secret'
  | 'provider-api-key'
  /** The signing secret of a vendor's notification endpoint (issue 28), bound to the endpoint's ID. */
  | 'notification-secret';

/** Where a sealed value belongs: its purpose and its record's ID (`''` for a value of no record). */
export interface SealedFor {
  purpose: SealPurpose;
  record: string;
}

/**
 * Encrypts secrets at rest (AES-256-GCM under a master key the host supplies). A ciphertext opens
 * only with the same `sealedFor` it was sealed with; anything else throws.
 */
export interface SecretBox {
  encrypt(plaintext: Uint8Array, sealedFor: SealedFor): string;
  decrypt(ciphertext: string, sealedFor: SealedFor): Uint8Array;
}

/**
 * Looks up DNS TXT records (the host wires `node:dns`'s `Resolver`). Resolves with each record's
 * character strings (a long record is split into several), an empty list when the name has no
 * TXT record (NXDOMAIN, NODATA), and rejects only when the lookup itself fails (timeout, refused).
 */
export interface DnsResolver {
  resolveTxt(name: string): Promise<string[][]>;
}
