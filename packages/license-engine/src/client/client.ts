import { LicensingError } from '../_internal/errors.js';
import type { ActivationRecord, LicenseRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { audit } from '../_internal/audit.js';
import { newActivation } from '../_internal/new-activation.js';
import { freeActivation } from '../_internal/free-activation.js';
import { activationView } from '../_internal/record-views.js';
import { prepareCertificate, signCertificateOf } from './certificates.js';
import type { ActivateResult, ValidateResult } from './results.js';
import type { UnsignedCertificate } from './certificates.js';
import type { EngineContext } from '../_internal/context.js';
import { now, readMostly, transact } from '../_internal/context.js';
import { activationLimitOf } from '../_internal/effective.js';
import { timestampMs } from '../_internal/time.js';
import { invalid } from '../_internal/validate.js';
import { isFloating } from '../_internal/plan-seats.js';
import { assertUsable, find, parse } from './lookup.js';
import { holdSeat, keptLease, quickRenewal } from './seats.js';
import type { HeldSeat, LeaseAnswer } from './seats.js';
import type { Found } from './lookup.js';

export interface ActivateInput {
  product: string;
  key: string;
  /** 64 lowercase hex characters (`machineFingerprint`). */
  fingerprint: string;
  name?: string;
  platform?: string;
  appVersion?: string;
}

export type ValidateInput = Omit<ActivateInput, 'name'>;
export type DeactivateInput = Pick<ActivateInput, 'product' | 'key' | 'fingerprint'>;

/**
 * Options of a client API call (`activate`, `validate`, `deactivate`), set by the host, never
 * taken from the request.
 */
export interface ClientCallOptions {
  /**
   * `hashLicenseKey(input.key)` when the host computed it already (the reference server does, for
   * its per-key rate limit), so a call hashes its key once. It must be the hash of `input.key`:
   * the license is looked up by it.
   */
  keyHash?: string;
  /**
   * Settles when the host has admitted the call (the reference server counts it against its rate
   * limits there); its rejection (e.g. `rate_limited`) is the call's answer. Nothing is written or
   * signed, and no answer or error of the call is given, before it resolves. `validate` runs its
   * read-only lookup meanwhile, so the host's round trip and the store's overlap; `activate` and
   * `deactivate` wait for it first.
   */
  admitted?: PromiseLike<void>;
}

/**
 * `POST /licenses/activate`. Idempotent for a known fingerprint (refreshes it, no extra seat).
 * A new machine beyond the activation limit is `activation_limit`; in a closed account `account_closed`.
 */
export async function activate(ctx: EngineContext, input: ActivateInput, options: ClientCallOptions = {}): Promise<ActivateResult> {
  await options.admitted;
  return activateParsed(ctx, parse(input, true, options), 'client');
}

/** What an activation needs once its input is checked: the license is found by its key hash. */
export interface ParsedActivation {
  product: string;
  keyHash: string;
  fingerprint: string;
  name: string | null;
  platform: string | null;
  appVersion: string | null;
}

/**
 * The one activation: `POST /licenses/activate` and the offline activation by request run it with the
 * same rules and limits. `accountId`, when given, scopes the product and license to that account
 * (another account's are `unknown_product` / `unknown_key`, as if they did not exist); `check` may
 * refuse the license found (e.g. it is not the signed-in customer's) before anything is written.
 */
export async function activateParsed(
  ctx: EngineContext,
  req: ParsedActivation,
  source: 'client' | 'offline',
  scope: { accountId?: string; check?: (license: LicenseRecord) => void } = {},
): Promise<ActivateResult> {
  const decided = await transact(ctx, async (tx): Promise<{ unsigned: UnsignedCertificate; activation: string; lease?: LeaseAnswer; revocationListSeq: number }> => {
    const found = await find(ctx, tx, req.product, req.keyHash, req.fingerprint, true, true);
    if (scope.accountId !== undefined && found.product.accountId !== scope.accountId) {
      throw new LicensingError('unknown_product', `no product ${req.product}`);
    }
    scope.check?.(found.license);
    assertUsable(ctx, found);
    const { license, plan, product, account } = found;
    if (isFloating(plan)) {
      if (source === 'offline') invalid('a floating seat needs a machine that can reach the service: offline activation is for machine plans (borrow a seat to travel)');
      if (!found.activation && account.status === 'closed') throw new LicensingError('account_closed', 'the vendor account is closed: no new activations');
      const held = await holdSeat(ctx, tx, found, req);
      const unsigned = await prepareCertificate(ctx, tx, { license, plan, product, activation: held.activation, signingKey: found.signingKey, lease: held.lease });
      return { unsigned, activation: held.activation.id, lease: held.lease, revocationListSeq: product.revocationSeq ?? 0 };
    }
    const at = now(ctx);
    let activation = found.activation;
    if (activation) {
      activation = {
        ...activation,
        lastSeenAt: at,
        name: req.name ?? activation.name,
        platform: req.platform ?? activation.platform,
        appVersion: req.appVersion ?? activation.appVersion,
      };
      // Held for the commit where the store can: the activation is locked, so it matches.
      await tx.update('activations', activation, { defer: true });
    } else {
      if (account.status === 'closed') throw new LicensingError('account_closed', 'the vendor account is closed: no new activations');
      const limit = activationLimitOf(license, plan);
      if (license.activationCount >= limit) {
        const inUse = limit === 1 ? 'the one activation of this license is in use' : `all ${limit} activations of this license are in use`;
        throw new LicensingError('activation_limit', `${inUse}: free a machine first`);
      }
      const created = newActivation(ctx, license, req, at, found.freedAt);
      activation = created;
      // Held for the commit where the store can: the license row is locked, and a clash on the
      // machine (impossible under that lock) would fail the unit, which `transact` runs again.
      await tx.insert('activations', activation, { defer: true });
      await tx.update('licenses', { ...license, activationCount: license.activationCount + 1, updatedAt: at }, { defer: true });
      await audit(ctx, tx, {
        accountId: license.accountId,
        type: 'activation.created',
        licenseId: license.id,
        data: { activation: activation.id, fingerprint: req.fingerprint, ...(source === 'offline' ? { source } : {}) },
        account,
        view: () => activationView(created, ctx.clock.now()),
      });
    }
    const unsigned = await prepareCertificate(ctx, tx, { license, plan, product, activation, signingKey: found.signingKey });
    return { unsigned, activation: activation.id, revocationListSeq: product.revocationSeq ?? 0 };
  });
  const certificate = await signCertificateOf(decided.unsigned);
  const answer = { certificate, activation: decided.activation, revocationListSeq: decided.revocationListSeq };
  return decided.lease ? { ...answer, lease: decided.lease } : answer;
}

/**
 * How far `lastSeenAt` may lag behind the last validate: validate writes the activation only when
 * `lastSeenAt` would move by more than this (or the platform or app version changed), so most
 * validates only read. Activate always refreshes it.
 *
 * @example
 * ```ts
 * LAST_SEEN_RESOLUTION_MS; // 60000
 * ```
 */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

/**
 * `POST /licenses/validate`: `not_activated` without an activation; records `lastSeenAt` to within
 * `LAST_SEEN_RESOLUTION_MS`.
 */
export async function validate(ctx: EngineContext, input: ValidateInput, options: ClientCallOptions = {}): Promise<ValidateResult> {
  let req: ReturnType<typeof parse>;
  try {
    req = parse(input, false, options);
  } catch (error) {
    await options.admitted; // a refusal of the host comes before the input's
    throw error;
  }
  // Most validates write nothing: they read without locks in a read-only unit. A floating
  // heartbeat that renews a lease with time left writes only its activation, compared and set
  // against what the read found; anything else (lastSeenAt, details, a lapse) runs again, locked.
  const read = await readMostly(ctx, (tx, write) => validateIn(ctx, tx, req, write), options.admitted, VALIDATE_WRITE, (r) => !isDecision(r));
  const decided = isDecision(read) ? read : ((await renewQuickly(ctx, read)) ?? ((await transact(ctx, (tx) => validateIn(ctx, tx, req, true), VALIDATE_WRITE)) as ValidateDecision));
  const answer = { certificate: await (decided.signing ?? signCertificateOf(decided.unsigned)), revocationListSeq: decided.revocationListSeq };
  return decided.lease ? { ...answer, lease: decided.lease } : answer;
}

/** What a validate decided in its unit: the certificate to sign, and on a floating plan the lease. */
interface ValidateDecision {
  unsigned: UnsignedCertificate;
  /** The signature of `unsigned`, started while the unit's write was committed (a quick renewal); else signed after the unit. */
  signing?: Promise<string>;
  lease?: LeaseAnswer;
  revocationListSeq: number;
}

/** A read-only attempt's finding that the heartbeat may renew without the license lock: what it read, the renewal, and when (ms). */
interface QuickRenewal {
  found: Found;
  renewal: HeldSeat;
  decidedAt: number;
}

/** A quick renewal decided longer ago than this goes to the locked unit: its 30 s margin must cover the time to its write. */
const QUICK_RENEWAL_WINDOW_MS = 5_000;

const isDecision = (r: ValidateDecision | QuickRenewal): r is ValidateDecision => 'unsigned' in r;

/**
 * Validate's locked unit never changes a record it read (every write below is a new object spread
 * from one; audited with `holdSeat`, `tidyLapsed`, `recordLapse`, `audit` and `prepareCertificate`),
 * so a store may hand it shared frozen records instead of copies.
 */
const VALIDATE_WRITE = { sharedReads: true } as const;

/**
 * Stores a {@link quickRenewal} in a unit of its own: one compare and set of the activation
 * against the record the read-only attempt found (docs/decisions/license-engine.md, "Renewing
 * without the license lock"), then the certificate of the lease stored. Undefined when the record
 * changed since, the decision is older than {@link QUICK_RENEWAL_WINDOW_MS}, or the store cannot
 * compare and set: the locked unit then decides.
 */
async function renewQuickly(ctx: EngineContext, { found, renewal, decidedAt }: QuickRenewal): Promise<ValidateDecision | undefined> {
  return transact(
    ctx,
    async (tx, clash) => {
      if (clash !== null || !tx.updateIfUnchanged || ctx.clock.now() - decidedAt > QUICK_RENEWAL_WINDOW_MS) return undefined;
      await tx.updateIfUnchanged('activations', found.activation!, renewal.activation);
      const { license, plan, product, signingKey } = found;
      const unsigned = await prepareCertificate(ctx, tx, { license, plan, product, activation: renewal.activation, signingKey, lease: renewal.lease });
      // Signed in libuv's pool while the store commits the renewal, not after: the answer still waits
      // for the commit (validate awaits this unit first), and a unit that fails drops the signature.
      // On the embedded store the pool runs it before the next group's journal write, so a renewal's
      // answer goes out once its group is on disk instead of after its group's signatures too.
      const signing = signCertificateOf(unsigned);
      signing.catch(() => undefined);
      return { unsigned, signing, lease: renewal.lease, revocationListSeq: product.revocationSeq ?? 0 };
    },
    VALIDATE_WRITE,
  );
}

/**
 * One validate in `tx`. Without `write` (read-only), a {@link QuickRenewal} when the heartbeat may
 * renew without the license lock, undefined when it must write locked; with `write` (locked), always a decision.
 */
async function validateIn(ctx: EngineContext, tx: StoreTx, req: ReturnType<typeof parse>, write: boolean): Promise<ValidateDecision | QuickRenewal | undefined> {
  const found = await find(ctx, tx, req.product, req.keyHash, req.fingerprint, write);
  assertUsable(ctx, found);
  const seen = found.activation;
  if (!seen) throw new LicensingError('not_activated', 'this machine is not activated on the license');
  if (isFloating(found.plan)) {
    // A heartbeat soon after the last renewal answers the stored lease; otherwise it renews.
    const nowMs = ctx.clock.now();
    let lease = keptLease(found, req, nowMs);
    let renewed: ActivationRecord | null = null;
    if (lease === null) {
      if (!write) {
        const renewal = tx.updateIfUnchanged ? quickRenewal(found, req, nowMs) : null;
        return renewal === null ? undefined : { found, renewal, decidedAt: nowMs };
      }
      ({ lease, activation: renewed } = await holdSeat(ctx, tx, found, { ...req, name: null }));
    }
    const { license, plan, product, signingKey } = found;
    const unsigned = await prepareCertificate(ctx, tx, { license, plan, product, activation: renewed ?? seen, signingKey, lease });
    return { unsigned, lease, revocationListSeq: product.revocationSeq ?? 0 };
  }
  const next = { ...seen, platform: req.platform ?? seen.platform, appVersion: req.appVersion ?? seen.appVersion };
  // Coalesced: the hottest path writes only when lastSeenAt moves by more than the resolution (or details change).
  const stale = ctx.clock.now() - timestampMs(seen.lastSeenAt) > LAST_SEEN_RESOLUTION_MS;
  if (stale || next.platform !== seen.platform || next.appVersion !== seen.appVersion) {
    if (!write) return undefined;
    await tx.update('activations', { ...next, lastSeenAt: now(ctx) }, { defer: true });
  }
  const { license, plan, product, signingKey } = found;
  return { unsigned: await prepareCertificate(ctx, tx, { license, plan, product, activation: seen, signingKey }), revocationListSeq: product.revocationSeq ?? 0 };
}

/** `POST /licenses/deactivate`: frees the machine's seat, in any license status; on a floating plan also returns a borrow early. */
export async function deactivate(ctx: EngineContext, input: DeactivateInput, options: ClientCallOptions = {}): Promise<{ deactivated: true }> {
  await options.admitted;
  const req = parse(input, false, options);
  return transact(ctx, async (tx) => {
    const { license, activation, account } = await find(ctx, tx, req.product, req.keyHash, req.fingerprint);
    if (!activation) throw new LicensingError('not_activated', 'this machine is not activated on the license');
    await freeActivation(ctx, tx, { license, activation, account, source: 'client', deferDelete: true });
    return { deactivated: true as const };
  });
}
