import { describe, expect, it } from 'vitest';
import { decideDeactivate, decideRefresh, isRefreshDue, isRefusalRetryDue, isTrustedOutcome } from '../src/client-decide.js';

const refused = (status: number, code: string | null) => ({ kind: 'refused' as const, status, code });

describe('rule 4 at a refresh: what happens to the cached certificate', () => {
  it('keeps it on a network error, 429 and every 5xx, saying why', () => {
    expect(decideRefresh({ kind: 'network_error' })).toEqual({ action: 'keep', refreshError: 'network_error' });
    expect(decideRefresh(refused(429, 'rate_limited'))).toEqual({ action: 'keep', refreshError: 'rate_limited' });
    for (const status of [500, 502, 503, 504]) {
      expect(decideRefresh(refused(status, 'internal_error'))).toEqual({ action: 'keep', refreshError: 'internal_error' });
      expect(decideRefresh(refused(status, null))).toEqual({ action: 'keep', refreshError: 'invalid_response' });
    }
  });

  it('clears it on every 403 of the server', () => {
    for (const code of ['license_expired', 'license_suspended', 'license_refunded', 'license_revoked', 'account_closed']) {
      expect(decideRefresh(refused(403, code))).toEqual({ action: 'clear', refusal: code });
    }
  });

  it('clears it on 404 unknown_key, unknown_product and not_activated only', () => {
    for (const code of ['unknown_key', 'unknown_product', 'not_activated']) {
      expect(decideRefresh(refused(404, code))).toEqual({ action: 'clear', refusal: code });
    }
    expect(decideRefresh(refused(404, 'not_found'))).toEqual({ action: 'keep', refreshError: 'not_found' });
  });

  it('keeps it when a 403 or 404 does not carry the spec error body (a proxy or captive portal answered)', () => {
    expect(decideRefresh(refused(403, null))).toEqual({ action: 'keep', refreshError: 'invalid_response' });
    expect(decideRefresh(refused(404, null))).toEqual({ action: 'keep', refreshError: 'invalid_response' });
  });

  it('keeps it on answers rule 4 does not name (400, 409, a 200 without a certificate)', () => {
    expect(decideRefresh(refused(400, 'invalid_request'))).toEqual({ action: 'keep', refreshError: 'invalid_request' });
    expect(decideRefresh(refused(409, 'activation_limit'))).toEqual({ action: 'keep', refreshError: 'activation_limit' });
    expect(decideRefresh(refused(200, null))).toEqual({ action: 'keep', refreshError: 'invalid_response' });
  });

  it('stores a new certificate that verifies, or that fails only for a reason the server vouches for', () => {
    for (const outcome of ['valid', 'expired', 'not_usable', 'version_not_covered', 'clock_tampered']) {
      expect(decideRefresh({ kind: 'certificate', outcome })).toEqual({ action: 'store' });
    }
  });

  it('ignores a new certificate that does not verify here and keeps the cached one (rotation)', () => {
    for (const outcome of ['invalid_signature', 'malformed', 'wrong_product', 'wrong_machine']) {
      expect(decideRefresh({ kind: 'certificate', outcome })).toEqual({ action: 'keep', refreshError: 'invalid_certificate' });
      expect(isTrustedOutcome(outcome)).toBe(false);
    }
  });
});

describe('rule 4 at deactivation', () => {
  it('deletes the stored certificate on success and also on a 404 answer, whatever its code', () => {
    expect(decideDeactivate({ kind: 'ok' })).toEqual({ action: 'delete', released: true });
    for (const code of ['not_activated', 'unknown_key', 'unknown_product', 'not_found']) {
      expect(decideDeactivate(refused(404, code))).toEqual({ action: 'delete', released: false });
    }
  });

  it('keeps it on a network error, 429 and 5xx so the call can be retried', () => {
    expect(decideDeactivate({ kind: 'network_error' })).toEqual({ action: 'keep' });
    expect(decideDeactivate(refused(429, 'rate_limited'))).toEqual({ action: 'keep' });
    expect(decideDeactivate(refused(500, 'internal_error'))).toEqual({ action: 'keep' });
    expect(decideDeactivate(refused(404, null))).toEqual({ action: 'keep' });
  });

  it('clears the certificate when the server refuses the license (403)', () => {
    expect(decideDeactivate(refused(403, 'license_revoked'))).toEqual({ action: 'clear', refusal: 'license_revoked' });
  });
});

describe('when check() goes online', () => {
  const refreshAfter = 1_767_312_000;

  it('not before refreshAfter, and at its next call once refreshAfter has passed', () => {
    expect(isRefreshDue({ outcome: 'valid', refreshAfter }, refreshAfter - 1)).toBe(false);
    expect(isRefreshDue({ outcome: 'valid', refreshAfter }, refreshAfter)).toBe(true);
    expect(isRefreshDue({ outcome: 'not_usable', refreshAfter }, refreshAfter + 10)).toBe(true);
  });

  it('at once when the cached certificate expired before its refreshAfter, or can never verify here', () => {
    expect(isRefreshDue({ outcome: 'expired', refreshAfter }, refreshAfter - 3600)).toBe(true);
    expect(isRefreshDue({ outcome: 'invalid_signature', refreshAfter: null }, 0)).toBe(true);
    expect(isRefreshDue({ outcome: 'wrong_machine', refreshAfter }, refreshAfter - 3600)).toBe(true);
  });

  it('not while the clock looks rolled back', () => {
    expect(isRefreshDue({ outcome: 'clock_tampered', refreshAfter }, refreshAfter + 1)).toBe(false);
  });
});

describe('a replayed older certificate and the retry after a refusal', () => {
  it('keeps the cached certificate when a verified new one is older than the newest seen, saying stale_certificate', () => {
    expect(decideRefresh({ kind: 'certificate', outcome: 'valid', stale: true })).toEqual({ action: 'keep', refreshError: 'stale_certificate' });
    expect(decideRefresh({ kind: 'certificate', outcome: 'valid', stale: false })).toEqual({ action: 'store' });
    // An untrusted certificate is refused for that reason first.
    expect(decideRefresh({ kind: 'certificate', outcome: 'invalid_signature', stale: true })).toEqual({ action: 'keep', refreshError: 'invalid_certificate' });
  });

  it('asks again after a refusal at most once per interval, and at once when never asked or the clock went back', () => {
    const hour = 3600;
    expect(isRefusalRetryDue(null, 1_000_000, hour)).toBe(true);
    expect(isRefusalRetryDue(1_000_000, 1_000_000 + hour - 1, hour)).toBe(false);
    expect(isRefusalRetryDue(1_000_000, 1_000_000 + hour, hour)).toBe(true);
    expect(isRefusalRetryDue(1_000_000, 1_000_000 - 2 * hour, hour)).toBe(true);
  });
});
