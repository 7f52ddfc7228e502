import { LicensingError } from '../_internal/errors.js';
import type { EngineContext } from '../_internal/context.js';
import { transact } from '../_internal/context.js';
import { invalid } from '../_internal/validate.js';
import { isFloating, planSeatsOf } from '../_internal/plan-seats.js';
import { prepareCertificate, signCertificateOf } from './certificates.js';
import type { ActivateInput, ClientCallOptions } from './client.js';
import { assertUsable, find, parse } from './lookup.js';
import { holdSeat } from './seats.js';
import type { LeaseAnswer } from './seats.js';

/** `POST /licenses/borrow`: the machine and how many days it borrows its seat for. */
export interface BorrowInput extends Pick<ActivateInput, 'product' | 'key' | 'fingerprint' | 'name' | 'platform' | 'appVersion'> {
  /** Whole days, 1..the plan's `maxBorrowDays`. */
  days: number;
}

/** The answer of a borrow: the borrowed certificate, the activation and its lease. */
export interface BorrowResult {
  certificate: string;
  activation: string;
  lease: LeaseAnswer;
}

/**
 * `POST /licenses/borrow` (docs/floating-seats.md, "Borrowing"): the machine keeps its seat without
 * heartbeats until `days` from now (a borrow never shortens one standing). A machine without a live
 * lease checks a seat out first. `invalid_request` for `days` outside 1..`maxBorrowDays` or a machine
 * plan; `borrow_limit` beyond `maxBorrowedSeats`; `activation_limit` when no seat is free; the other
 * refusals of activate. A refusal changes nothing.
 */
export async function borrow(ctx: EngineContext, input: BorrowInput, options: ClientCallOptions = {}): Promise<BorrowResult> {
  const req = parse(input, true, options);
  const days = (input as unknown as Record<string, unknown>).days;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 365) invalid('days must be a whole number of days from 1 to the plan\'s maxBorrowDays');
  const decided = await transact(ctx, async (tx) => {
    const found = await find(ctx, tx, req.product, req.keyHash, req.fingerprint, true, true);
    assertUsable(ctx, found);
    const { license, plan, product, account } = found;
    if (!isFloating(plan)) invalid('borrowing is for floating plans: this license\'s seats are bound to machines');
    const maxDays = planSeatsOf(plan).maxBorrowDays ?? 0;
    if (days > maxDays) invalid(maxDays === 0 ? 'this plan allows no borrowing (maxBorrowDays 0)' : `days must be from 1 to ${maxDays} on this plan`);
    if (!found.activation && account.status === 'closed') throw new LicensingError('account_closed', 'the vendor account is closed: no new activations');
    const held = await holdSeat(ctx, tx, found, { ...req, borrowDays: days });
    const unsigned = await prepareCertificate(ctx, tx, { license, plan, product, activation: held.activation, signingKey: found.signingKey, lease: held.lease });
    return { unsigned, activation: held.activation.id, lease: held.lease };
  });
  return { certificate: await signCertificateOf(decided.unsigned), activation: decided.activation, lease: decided.lease };
}
