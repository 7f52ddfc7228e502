import { base64urlEncode } from '@svc-licensing/cert-format';
import type { Timestamp } from '../_internal/records.js';
import type { SealedFor } from '../_internal/ports.js';
import type { EngineContext } from '../_internal/context.js';
import { sha256Hex } from '../_internal/hash.js';
import { toTimestamp } from '../_internal/time.js';
import { LINK_MS, REOPEN_REQUEST_MS } from './links.js';

const OPERATOR_PREFIX = 'svc_op_';
/**
 * Operator links are sealed for this purpose only: no other sealed value (a webhook secret a vendor
 * chose) opens as one; the record names the link's use, so a sign-in link never opens as a reopen link.
 */
const SEALED_FOR: Record<OperatorLinkPurpose, SealedFor> = { sign_in: { purpose: 'operator-link', record: '' }, reopen: { purpose: 'operator-link', record: 'reopen' } };

/** What an operator link does: sign the owner in, or reopen the closed account and sign its owner in. */
export type OperatorLinkPurpose = 'sign_in' | 'reopen';
/** The claim's nonce: 16 random bytes, base64url. */
const NONCE = /^[A-Za-z0-9_-]{22}$/;

/** The claim of an operator link: whose owner it signs in, until when, and the nonce that makes it one link. */
export interface OperatorClaim {
  accountId: string;
  expiresMs: number;
  nonce: string;
}

/**
 * A sign-in link the operator issues without the store (`svc owner sign-in-link` beside a running
 * embedded server, which holds the store's lock): the claim (account, expiry, nonce) sealed with
 * the master key for the purpose `operator-link`. Nothing is stored until it is used; using it
 * records its claim's nonce, so it works once however the token is spelled or sealed again.
 *
 * @example
 * ```ts
 * const { token } = sealOperatorSignInLink({ secrets, clock: systemClock, random: cryptoRandom }, 'acc_01...');
 * ```
 */
export function sealOperatorSignInLink(
  deps: Pick<EngineContext, 'secrets' | 'clock' | 'random'>,
  accountId: string,
): { token: string; expiresAt: Timestamp } {
  return sealOperatorLink(deps, accountId, 'sign_in');
}

/**
 * A reopen link the operator issues without the store (`svc owner reopen-link`), for the owner of a
 * closed account who lost the e-mailed one: valid once for 24 hours, and only while the account can
 * still be reopened (30 days after its closure, checked when it is used).
 *
 * @example
 * ```ts
 * const { token } = sealOperatorReopenLink({ secrets, clock: systemClock, random: cryptoRandom }, 'acc_01...');
 * ```
 */
export function sealOperatorReopenLink(
  deps: Pick<EngineContext, 'secrets' | 'clock' | 'random'>,
  accountId: string,
): { token: string; expiresAt: Timestamp } {
  return sealOperatorLink(deps, accountId, 'reopen');
}

function sealOperatorLink(deps: Pick<EngineContext, 'secrets' | 'clock' | 'random'>, accountId: string, purpose: OperatorLinkPurpose) {
  const expiresMs = deps.clock.now() + (purpose === 'sign_in' ? LINK_MS : REOPEN_REQUEST_MS);
  const claim = JSON.stringify({ a: accountId, x: expiresMs, n: base64urlEncode(deps.random.bytes(16).slice(0, 16)) });
  return { token: OPERATOR_PREFIX + deps.secrets.encrypt(new TextEncoder().encode(claim), SEALED_FOR[purpose]), expiresAt: toTimestamp(expiresMs) };
}

/** The claim of an operator link of `purpose`, or null when it is none or does not open as one under this master key. */
export function openOperatorClaim(ctx: Pick<EngineContext, 'secrets'>, token: string, purpose: OperatorLinkPurpose = 'sign_in'): OperatorClaim | null {
  if (!token.startsWith(OPERATOR_PREFIX)) return null;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(ctx.secrets.decrypt(token.slice(OPERATOR_PREFIX.length), SEALED_FOR[purpose]));
    const claim = JSON.parse(text) as { a?: unknown; x?: unknown; n?: unknown };
    if (typeof claim.a !== 'string' || typeof claim.x !== 'number' || typeof claim.n !== 'string' || !NONCE.test(claim.n)) return null;
    return { accountId: claim.a, expiresMs: claim.x, nonce: claim.n };
  } catch {
    return null;
  }
}

/** What the used-link record of an operator link is found by: its claim's nonce, not the token's text. */
export function operatorLinkHash(claim: OperatorClaim): string {
  return sha256Hex(`${OPERATOR_PREFIX}nonce:${claim.nonce}`);
}
