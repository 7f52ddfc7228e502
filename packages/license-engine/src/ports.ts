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

export type IdPrefix = 'acc' | 'key' | 'prd' | 'sgk' | 'pln' | 'lic' | 'cus' | 'act' | 'int' | 'pcu' | 'pev' | 'evt' | 'mem' | 'ses' | 'ltk' | 'cse' | 'sdm';

/** Encrypts secrets at rest (AES-256-GCM under a master key the host supplies). */
export interface SecretBox {
  encrypt(plaintext: Uint8Array): string;
  decrypt(ciphertext: string): Uint8Array;
}

/**
 * Looks up DNS TXT records (the host wires `node:dns`'s `Resolver`). Resolves with each record's
 * character strings (a long record is split into several), an empty list when the name has no
 * TXT record (NXDOMAIN, NODATA), and rejects only when the lookup itself fails (timeout, refused).
 */
export interface DnsResolver {
  resolveTxt(name: string): Promise<string[][]>;
}
