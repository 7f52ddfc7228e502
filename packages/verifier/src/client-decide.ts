/**
 * Rule 4 of the spec's client API as pure functions over (cached state, server answer), so every
 * branch is decided in one place and tested without a network.
 */

/** What a client API call produced, as the decision rules need it. */
export type ClientAnswer =
  /**
   * 200 with a certificate, already verified here; `outcome` is its verification outcome; `stale` is
   * true when its `issuedAt` is older than the highest one this machine has seen.
   */
  | { kind: 'certificate'; outcome: string; stale?: boolean }
  /** Any other HTTP answer. `code` is the spec body's `error.code`, null when the body is not the spec's shape. */
  | { kind: 'refused'; status: number; code: string | null }
  /** No HTTP answer at all (connection refused, DNS, timeout, CORS refusal). */
  | { kind: 'network_error' };

/** What to do with the stored certificate after a validation answer. */
export type RefreshAction =
  /** Store the new certificate (it verified, or failed only for a reason the server vouches for). */
  | { action: 'store' }
  /** Keep the cached certificate; the answer is offline. `refreshError` says why the refresh failed. */
  | { action: 'keep'; refreshError: string }
  /** Delete the cached certificate; `refusal` is the server's code. */
  | { action: 'clear'; refusal: string };

/**
 * Outcomes that say the certificate cannot be trusted or is not meant for this app and machine: such
 * a certificate is never stored (a refresh keeps the cached one; an activation reports `invalid_certificate`).
 */
export const UNTRUSTED_OUTCOMES: readonly string[] = ['malformed', 'invalid_signature', 'wrong_product', 'wrong_machine'];

/** 404 codes that clear the certificate (rule 4); any 403 with a spec error body clears it too. */
export const CLEARING_NOT_FOUND_CODES: readonly string[] = ['unknown_key', 'unknown_product', 'not_activated'];

/** True when a certificate with this verification outcome may be stored. */
export function isTrustedOutcome(outcome: string): boolean {
  return !UNTRUSTED_OUTCOMES.includes(outcome);
}

/**
 * True when the server refused the license itself (rule 4): a `403` carrying a spec error body, or a
 * `404` with `unknown_key`, `unknown_product` or `not_activated`. A 403 without the spec's body comes
 * from something in between (a proxy, a captive portal) and is not the license server's answer.
 */
export function isLicenseRefusal(status: number, code: string | null): code is string {
  if (code === null) return false;
  return status === 403 || (status === 404 && CLEARING_NOT_FOUND_CODES.includes(code));
}

/**
 * Rule 4 at a refresh (`check()` after `refreshAfter`, or `validate()`): network errors, `429`, `5xx`
 * and any other unexpected answer keep the cached certificate; a refusal clears it; a new certificate
 * is stored when it verifies, and ignored (cached one kept, answer offline) when it does not — the
 * rotation case of an app that does not embed the new key — or when it is older than the newest
 * certificate already seen (a replayed answer must not roll the license back).
 */
export function decideRefresh(answer: ClientAnswer): RefreshAction {
  if (answer.kind === 'network_error') return { action: 'keep', refreshError: 'network_error' };
  if (answer.kind === 'certificate') {
    if (!isTrustedOutcome(answer.outcome)) return { action: 'keep', refreshError: 'invalid_certificate' };
    return answer.stale === true ? { action: 'keep', refreshError: 'stale_certificate' } : { action: 'store' };
  }
  if (isLicenseRefusal(answer.status, answer.code)) return { action: 'clear', refusal: answer.code };
  return { action: 'keep', refreshError: answer.code ?? 'invalid_response' };
}

/** What to do with the stored state after a deactivation answer. */
export type DeactivateAction =
  /** Delete the certificate and the key: the seat is free (200), or the server has no such activation (404). */
  | { action: 'delete'; released: boolean }
  /** Keep everything so the call can be retried (network error, 429, 5xx, anything unexpected). */
  | { action: 'keep' }
  /** The server refused the license (403): delete the certificate as rule 4 says, keep the key. */
  | { action: 'clear'; refusal: string };

/**
 * Rule 4 at deactivation: the stored certificate is deleted on success and also on a `404` answer
 * (with the spec's error body, whatever its code); on a network error it is kept so the call can be retried.
 */
export function decideDeactivate(answer: { kind: 'ok' } | Exclude<ClientAnswer, { kind: 'certificate' }>): DeactivateAction {
  if (answer.kind === 'ok') return { action: 'delete', released: true };
  if (answer.kind === 'network_error') return { action: 'keep' };
  if (answer.status === 404 && answer.code !== null) return { action: 'delete', released: false };
  if (isLicenseRefusal(answer.status, answer.code)) return { action: 'clear', refusal: answer.code };
  return { action: 'keep' };
}

/** The parts of a verified cached certificate that decide whether `check()` goes online. */
export interface CachedVerification {
  outcome: string;
  /** The certificate's `refreshAfter` (Unix seconds), when its payload could be read. */
  refreshAfter: number | null;
}

/**
 * True when `check()` must validate online now: `refreshAfter` has passed, or the cached certificate
 * is expired (its `expiresAt` can come before `refreshAfter` when `validUntil` is near) or can never
 * verify here (e.g. signed by a key this app version no longer embeds). A clock that looks rolled
 * back does not trigger a call: the cached answer `clock_tampered` stands until the clock is right.
 */
export function isRefreshDue(cached: CachedVerification, nowSeconds: number): boolean {
  if (cached.outcome === 'expired' || !isTrustedOutcome(cached.outcome)) return true;
  if (cached.outcome === 'clock_tampered') return false;
  return cached.refreshAfter === null || nowSeconds >= cached.refreshAfter;
}

/**
 * True when `check()` should ask the server again about a license it refused earlier (the certificate
 * was cleared by a 403 or 404 but the key is kept): at most once per `intervalSeconds`, counted from
 * the last attempt, so a license the vendor reinstates comes back without hammering the server.
 */
export function isRefusalRetryDue(lastAttemptAt: number | null, nowSeconds: number, intervalSeconds: number): boolean {
  return lastAttemptAt === null || nowSeconds >= lastAttemptAt + intervalSeconds || nowSeconds < lastAttemptAt - intervalSeconds;
}
