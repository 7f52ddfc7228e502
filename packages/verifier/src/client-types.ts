import type { CertificatePayload } from '@svc-licensing/cert-format';
import type { LicenseLease } from './client-lease.js';
import type { VerificationOutcome } from './outcomes.js';

/**
 * The answer of `importRevocationList()`. Accepted: the list is now the one this machine holds
 * (`reason` null), or it already held that `seq` (`unchanged`). Refused: the list's verification
 * outcome (`malformed`, `invalid_signature`, `wrong_product`), or `older_seq` when this machine has
 * already accepted a list with a higher `seq` (a rollback to an older list is never accepted).
 */
export type RevocationImport =
  | { accepted: true; reason: null | 'unchanged' }
  | { accepted: false; reason: 'malformed' | 'invalid_signature' | 'wrong_product' | 'older_seq' };

/** The answer of `check()` (and of `validate()` and `activate()` when they succeed). */
export interface LicenseCheck {
  /** True when the certificate verified: the app may run with `payload.entitlements`. */
  valid: boolean;
  /** The verification outcome of the certificate the answer is based on; null when there is none. */
  outcome: VerificationOutcome | null;
  /** The certificate's payload (present whenever its signature verified, also when expired). */
  payload: CertificatePayload | null;
  /** True when the answer comes from the cached certificate, not from a certificate the server just issued. */
  offline: boolean;
  /**
   * Why the license is not valid; null when valid. A verification outcome (`expired`,
   * `clock_tampered`, ...), `revoked` when an accepted revocation list names the license or this
   * machine (the certificate is then dropped), the server's code that cleared the certificate
   * (`license_revoked`, `not_activated`, ...), `no_certificate` when nothing is activated here, or
   * `released` after `release()` freed the seat and checking one out again did not succeed yet.
   */
  reason: string | null;
  /**
   * When a due refresh did not succeed and the cached certificate was kept: why (`network_error`,
   * `rate_limited`, `internal_error`, `invalid_certificate`, ...). Null otherwise.
   */
  refreshError: string | null;
  /**
   * The seat behind the certificate: `floating` (a lease the heartbeat renews, or a machine seat),
   * when the certificate stops working offline (`endsAt`, on this machine's clock) and the borrow's
   * end (`borrowedUntil`). Null when there is no certificate.
   */
  lease: LicenseLease | null;
}

/** The answer of `activate()`: the check of the new certificate plus the activation ID (`act_...`). */
export interface LicenseActivation extends LicenseCheck {
  activation: string;
}

/** Optional details recorded with an activation. */
export interface ActivateOptions {
  /** A name for this machine shown to the vendor, e.g. the host name. */
  name?: string;
  /** The platform, e.g. `process.platform` or `navigator.platform`. */
  platform?: string;
}

/** What an air-gapped machine's activation request carries besides the product, fingerprint and app version. */
export interface ActivationRequestOptions extends ActivateOptions {
  /** The license key, when the customer wants it in the request (then the vendor need not pick the license). */
  key?: string;
}

/** Options of `importCertificate()`. */
export interface ImportCertificateOptions {
  /**
   * The license key, stored so `check()` can refresh online if the machine ever gets a connection.
   * Default: the key already stored on this machine, if any.
   */
  key?: string;
}

/** Options of `release()`. */
export interface ReleaseOptions {
  /**
   * Also free a seat this machine holds a borrow on (and so end the borrow early). Default false: a
   * borrowed seat stays with the machine when the app quits, which is what a borrow is for.
   */
  returnBorrow?: boolean;
}

/** The online client of one product on one machine. Calls on one client run one at a time, in order. */
export interface LicenseClient {
  /** The product ID. */
  readonly product: string;
  /** This machine's fingerprint for the product (64 lowercase hex). */
  readonly fingerprint: string;
  /** Activates this machine with a license key; stores the key and the certificate. Throws `LicenseClientError`. */
  activate(key: string, options?: ActivateOptions): Promise<LicenseActivation>;
  /** Validates online now, applying rule 4 to the stored state; throws `LicenseClientError` when no new certificate was stored. */
  validate(): Promise<LicenseCheck>;
  /** Frees this machine's seat; deletes the stored certificate and key (also on a 404). Throws on other failures. */
  deactivate(): Promise<{ released: boolean }>;
  /**
   * Borrows this machine's floating seat for `days` whole days (1 to the plan's `maxBorrowDays`): the
   * certificate then works offline until the borrow's end, without heartbeats. Checks a seat out
   * first when the machine holds none. Throws `LicenseClientError` (`invalid_request` on a machine
   * plan or too many days, `borrow_limit`, `activation_limit`, `network_error`, ...).
   */
  borrow(days: number): Promise<LicenseActivation>;
  /**
   * For exit hooks: frees a floating seat at once so another machine can take it, and stops the
   * heartbeat. The request starts before the call returns and is sent with `keepalive` (a closing
   * page still sends it) and a timeout of at most 5 s. The key stays: the next `check()` or
   * `validate()` checks a seat out again. Does nothing (`released: false`) on a machine plan, when
   * nothing is held, and for a borrowed seat unless `returnBorrow` is set. Never rejects: a seat
   * whose release did not reach the server frees itself when its lease ends.
   */
  release(options?: ReleaseOptions): Promise<{ released: boolean }>;
  /**
   * The license state for the app: offline from the cache, online once `refreshAfter` has passed, and,
   * after the server refused the license, online again at most once per `refusalRetryMs`; after
   * `release()`, it checks a seat out again. Never throws for the network.
   */
  check(): Promise<LicenseCheck>;
  /**
   * The activation request of this machine for an air-gapped activation: the text `SVCREQ1.<...>`
   * (see the README) that the customer carries to the portal or the vendor. Reads and writes nothing.
   */
  createActivationRequest(options?: ActivationRequestOptions): string;
  /**
   * Stores the certificate the portal or vendor returned for this machine's activation request, after
   * verifying it with all nine rules (anything but `valid` throws `invalid_certificate`; one older than
   * the newest already seen throws `stale_certificate`). Stored exactly as an online activation is.
   */
  importCertificate(text: string, options?: ImportCertificateOptions): Promise<LicenseCheck>;
  /**
   * Takes an RVL1 revocation list carried by hand (a USB stick, a file shipped with an app update):
   * verified with the product's keys, and stored when its `seq` is at least the highest one accepted
   * here. Resolves to `{ accepted, reason }` and never throws for a bad or older list (only for a
   * storage failure). `check()` then reports `revoked` offline when the list names the license or
   * this machine. The online client also fetches the list itself when the server announces a newer one.
   */
  importRevocationList(text: string): Promise<RevocationImport>;
}
