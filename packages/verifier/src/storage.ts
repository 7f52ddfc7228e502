/**
 * Where the client SDK keeps its state between runs. An adapter stores one opaque text document
 * (the SDK serializes and checks it), so writing an adapter for any place that holds a string
 * (Electron `safeStorage`, a keychain, IndexedDB) takes two functions. Either may be sync or async.
 *
 * `write` must replace the whole document at once: a reader sees the old text or the new one,
 * never a mix (the file adapter writes a temporary file and renames it).
 *
 * @example
 * ```ts
 * const storage: LicenseStorage = {
 *   read: () => sessionStorage.getItem('my-app-license'),
 *   write: (text) => sessionStorage.setItem('my-app-license', text),
 * };
 * ```
 */
export interface LicenseStorage {
  /** The stored document, or null when nothing was ever written. */
  read(): string | null | Promise<string | null>;
  /** Replaces the stored document atomically. */
  write(text: string): void | Promise<void>;
}

/** What the SDK keeps for one product on one machine. */
export interface LicenseState {
  /** The product ID this state belongs to. */
  product: string;
  /** The normalized license key given to `activate()`; null before activation and after deactivation. */
  key: string | null;
  /** The last certificate that verified; null when none, or after the server refused the license. */
  certificate: string | null;
  /** The highest `issuedAt` (Unix seconds) of any certificate ever stored here: the clock-rollback rule. */
  highestIssuedAt: number | null;
  /** The server's error code that cleared the certificate (e.g. `license_revoked`); null otherwise. */
  refusal: string | null;
  /** When `check()` last asked the server about a refused license (Unix seconds); null when never. */
  refusalCheckedAt: number | null;
}

/**
 * Identifies the stored JSON document; a document of another format is treated as empty.
 *
 * @example
 * ```ts
 * JSON.parse(storage.text).format === LICENSE_STATE_FORMAT; // 'svc-license-state-v1'
 * ```
 */
export const LICENSE_STATE_FORMAT = 'svc-license-state-v1';

/**
 * The state of a machine that never activated `product`.
 *
 * @example
 * ```ts
 * emptyLicenseState('prd_123'); // { product: 'prd_123', key: null, certificate: null, highestIssuedAt: null, refusal: null, refusalCheckedAt: null }
 * ```
 */
export function emptyLicenseState(product: string): LicenseState {
  return { product, key: null, certificate: null, highestIssuedAt: null, refusal: null, refusalCheckedAt: null };
}

/**
 * Serializes a state to the stored JSON document `{ format: 'svc-license-state-v1', product, key,
 * certificate, highestIssuedAt, refusal, refusalCheckedAt }`.
 *
 * @example
 * ```ts
 * storage.write(encodeLicenseState({ ...emptyLicenseState('prd_123'), highestIssuedAt: 1767225600 }));
 * ```
 */
export function encodeLicenseState(state: LicenseState): string {
  return JSON.stringify({
    format: LICENSE_STATE_FORMAT,
    product: state.product,
    key: state.key,
    certificate: state.certificate,
    highestIssuedAt: state.highestIssuedAt,
    refusal: state.refusal,
    refusalCheckedAt: state.refusalCheckedAt,
  });
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * Parses a stored document for `product`. Never throws: null, unparsable text, another format or
 * another product's document give the empty state, and each field of the wrong type reads as null.
 *
 * @example
 * ```ts
 * const state = decodeLicenseState(await storage.read(), 'prd_123');
 * if (state.certificate) console.log('activated with', state.key);
 * ```
 */
export function decodeLicenseState(text: string | null, product: string): LicenseState {
  if (typeof text !== 'string') return emptyLicenseState(product);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return emptyLicenseState(product);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return emptyLicenseState(product);
  const doc = parsed as Record<string, unknown>;
  if (doc.format !== LICENSE_STATE_FORMAT || doc.product !== product) return emptyLicenseState(product);
  const highest = doc.highestIssuedAt;
  const checkedAt = doc.refusalCheckedAt;
  return {
    product,
    key: stringOrNull(doc.key),
    certificate: stringOrNull(doc.certificate),
    highestIssuedAt: typeof highest === 'number' && Number.isSafeInteger(highest) && highest >= 0 ? highest : null,
    refusal: stringOrNull(doc.refusal),
    refusalCheckedAt: typeof checkedAt === 'number' && Number.isSafeInteger(checkedAt) && checkedAt >= 0 ? checkedAt : null,
  };
}
