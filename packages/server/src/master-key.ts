import { randomBytes, timingSafeEqual } from 'node:crypto';
import { link, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecretBox, Store } from '@svc-licensing/license-engine';
import { ConfigError, MASTER_KEY_ENV } from './config.js';

/** Name of the generated master key file inside a data folder. */
export const MASTER_KEY_FILE = 'master.key';

/**
 * Decodes a master key given as base64 of exactly 32 bytes: the standard alphabet with or without
 * its padding (`openssl rand -base64 32`), or base64url. Only the canonical spelling of those bytes
 * is accepted (no stray characters, no set unused bits), so one key has one text.
 *
 * @example
 * ```ts
 * parseMasterKey(process.env.SVC_MASTER_KEY!, 'SVC_MASTER_KEY'); // Uint8Array(32)
 * ```
 */
export function parseMasterKey(text: string, source: string): Uint8Array {
  const trimmed = text.trim();
  const decoded = /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  const standard = decoded.toString('base64');
  const canonical = [standard, standard.replace(/=+$/, ''), decoded.toString('base64url')].includes(trimmed);
  const bytes = canonical ? decoded : Buffer.alloc(0);
  if (bytes.length !== 32) {
    throw new ConfigError(`${source} must be the base64 of 32 random bytes (generate one with: openssl rand -base64 32)`);
  }
  return new Uint8Array(bytes);
}

/** Where a master key came from. */
export type MasterKeySource = 'environment' | 'data-folder' | 'generated' | 'ephemeral';

/** Options of {@link resolveMasterKey}. */
export interface ResolveMasterKeyOptions {
  /** `SVC_MASTER_KEY`, if set. */
  fromEnv: string | undefined;
  /** The embedded store's data folder: the key is read from, or generated into, `<dataDir>/master.key`. */
  dataDir?: string;
  /** A store that keeps nothing (memory): a random key for this process is fine. */
  ephemeral?: boolean;
  /**
   * Whether a missing `master.key` may be generated (default true). Pass false when the store
   * already holds data: its secrets were encrypted with a key that must come back, not a new one.
   */
  generate?: boolean;
  /** Where warnings go (stderr by default). */
  warn?: (message: string) => void;
}

/**
 * Finds the master key that encrypts stored secrets: `SVC_MASTER_KEY` when set; on the embedded
 * store the data folder's `master.key`, generated (mode 0600) with a warning on first use;
 * otherwise (MySQL) a `ConfigError`, since every server process must share one key.
 *
 * @example
 * ```ts
 * const { key } = await resolveMasterKey({ fromEnv: process.env.SVC_MASTER_KEY, dataDir: './data' });
 * const secrets = createSecretBox(key);
 * ```
 */
export async function resolveMasterKey(options: ResolveMasterKeyOptions): Promise<{ key: Uint8Array; source: MasterKeySource }> {
  const warn = options.warn ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  const fromEnv = options.fromEnv?.trim() ? parseMasterKey(options.fromEnv, MASTER_KEY_ENV) : null;
  if (options.dataDir === undefined) {
    if (fromEnv) return { key: fromEnv, source: 'environment' };
    if (options.ephemeral) return { key: new Uint8Array(randomBytes(32)), source: 'ephemeral' };
    throw new ConfigError('SVC_MASTER_KEY is required with --database (the base64 of 32 random bytes: openssl rand -base64 32)');
  }
  const path = join(options.dataDir, MASTER_KEY_FILE);
  const stored = await readFile(path, 'utf8').then(
    (text) => parseMasterKey(text, path),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    },
  );
  if (fromEnv && stored && !timingSafeEqual(fromEnv, stored)) {
    throw new ConfigError(`SVC_MASTER_KEY differs from the key in ${path}; the stored secrets need the key they were encrypted with`);
  }
  if (fromEnv) return { key: fromEnv, source: 'environment' };
  if (stored) return { key: stored, source: 'data-folder' };
  if (options.generate === false) {
    throw new ConfigError(`the data folder holds data but no ${MASTER_KEY_FILE}: set ${MASTER_KEY_ENV} to the key it was created with, or restore ${path}`);
  }
  const key = await createKeyFile(path);
  warn(`generated a new master key in ${path}; it encrypts the stored secrets: back it up with the data folder and keep it private`);
  return { key, source: 'generated' };
}

/** Writes a fresh key to `path` atomically (temp file, fsync, hard link: never a half-written key). */
async function createKeyFile(path: string): Promise<Uint8Array> {
  const key = new Uint8Array(randomBytes(32));
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(`${Buffer.from(key).toString('base64')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, path); // fails if another process created the key meanwhile
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return parseMasterKey(await readFile(path, 'utf8'), path);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  return key;
}

/**
 * Refuses to run with a master key that cannot decrypt the stored secrets (a server started with
 * another deployment's key would start, then answer every activation with 500). Every product
 * has a signing key whose private key is encrypted, and every other secret (license keys,
 * webhook secrets, provider API keys) belongs to a product, so decrypting the oldest signing key
 * tells whether the key is the right one; a store without products has nothing to check.
 *
 * @example
 * ```ts
 * await checkMasterKey(store, createSecretBox(key)); // throws ConfigError naming SVC_MASTER_KEY
 * ```
 */
export async function checkMasterKey(store: Store, secrets: SecretBox, source = MASTER_KEY_ENV): Promise<void> {
  const signingKey = await store.transaction((tx) => tx.findOne('signingKeys', {}), { readOnly: true });
  if (!signingKey) return;
  try {
    secrets.decrypt(signingKey.privateKey, { purpose: 'signing-key', record: signingKey.id });
  } catch {
    throw new ConfigError(
      `the master key (${source}) cannot decrypt the stored secrets (signing key ${signingKey.kid} of product ${signingKey.productId}): ` +
        'start with the master key this data was created with',
    );
  }
}
