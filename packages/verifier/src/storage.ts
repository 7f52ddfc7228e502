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
  /** The newest RVL1 revocation list accepted here (its text), applied by `check()` offline; null when none. */
  revocationList: string | null;
  /** The highest revocation-list `seq` ever accepted here: an older list is refused (rollback). */
  revocationSeq: number | null;
  /** The floating lease of the stored certificate (docs/floating-seats.md), timed from its receipt; null on machine plans. */
  lease: StoredLease | null;
  /** True after `release()` freed the seat: the key stays, and the next `check()` or `validate()` checks a seat out again. */
  released: boolean;
  /** The machine name given to `activate()`, sent again when a released machine checks a seat out; null when none. */
  name: string | null;
  /** The platform given to `activate()`, sent again with the name; null when none. */
  platform: string | null;
}

/**
 * A floating lease as the SDK keeps it beside its certificate. The server's times are Unix seconds
 * on the server's clock; `receivedAt` and `ranMs` are this machine's, so the lease is timed from its
 * receipt whatever this machine's clock says (see `client-lease.ts`).
 */
export interface StoredLease {
  /** The plan's lease length when the lease was granted. */
  leaseSeconds: number;
  /** The server's stored lease end (Unix seconds, server clock). */
  leaseExpiresAt: number;
  /** The end of the machine's borrow (Unix seconds, server clock); null when it holds none. */
  borrowedUntil: number | null;
  /** The certificate's `issuedAt`: where the lease's time starts on the server's clock. */
  issuedAt: number;
  /** This machine's wall clock (Unix ms) when the lease's first certificate of that `issuedAt` arrived. */
  receivedAt: number;
  /** Milliseconds the SDK's monotonic clock counted since receipt, summed over runs, as last saved. */
  ranMs: number;
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
 * emptyLicenseState('prd_123'); // { product: 'prd_123', key: null, certificate: null, highestIssuedAt: null, ... all null }
 * ```
 */
export function emptyLicenseState(product: string): LicenseState {
  return {
    product,
    key: null,
    certificate: null,
    highestIssuedAt: null,
    refusal: null,
    refusalCheckedAt: null,
    revocationList: null,
    revocationSeq: null,
    lease: null,
    released: false,
    name: null,
    platform: null,
  };
}

/**
 * Serializes a state to the stored JSON document `{ format: 'svc-license-state-v1', product, key,
 * certificate, highestIssuedAt, refusal, refusalCheckedAt, revocationList, revocationSeq, lease,
 * released, name, platform }`.
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
    revocationList: state.revocationList,
    revocationSeq: state.revocationSeq,
    lease: state.lease,
    released: state.released,
    name: state.name,
    platform: state.platform,
  });
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const secondsOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null);

/** A stored lease with every field of its type, else null (the certificate is then timed by the wall clock). */
function leaseOrNull(value: unknown): StoredLease | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const fields = [v.leaseSeconds, v.leaseExpiresAt, v.issuedAt, v.receivedAt, v.ranMs].map(secondsOrNull);
  const borrowedUntil = v.borrowedUntil === null ? null : secondsOrNull(v.borrowedUntil);
  if (fields.includes(null) || (v.borrowedUntil !== null && borrowedUntil === null)) return null;
  const [leaseSeconds, leaseExpiresAt, issuedAt, receivedAt, ranMs] = fields as number[];
  return { leaseSeconds: leaseSeconds!, leaseExpiresAt: leaseExpiresAt!, borrowedUntil, issuedAt: issuedAt!, receivedAt: receivedAt!, ranMs: ranMs! };
}

/**
 * Parses a stored document for `product`. Never throws: null, unparsable text, another format or
 * another product's document give the empty state, and each field of the wrong type reads as null
 * (a document written before revocation lists existed reads with `revocationList` and `revocationSeq`
 * null; one written before floating seats with `lease` null and `released` false).
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
  const seq = secondsOrNull(doc.revocationSeq);
  return {
    product,
    key: stringOrNull(doc.key),
    certificate: stringOrNull(doc.certificate),
    highestIssuedAt: secondsOrNull(doc.highestIssuedAt),
    refusal: stringOrNull(doc.refusal),
    refusalCheckedAt: secondsOrNull(doc.refusalCheckedAt),
    revocationList: stringOrNull(doc.revocationList),
    revocationSeq: seq === 0 ? null : seq,
    lease: leaseOrNull(doc.lease),
    released: doc.released === true,
    name: stringOrNull(doc.name),
    platform: stringOrNull(doc.platform),
  };
}
