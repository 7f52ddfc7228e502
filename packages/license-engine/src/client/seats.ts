import { LicensingError } from '../_internal/errors.js';
import type { ActivationRecord, Timestamp } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { audit } from '../_internal/audit.js';
import { newActivation } from '../_internal/new-activation.js';
import { activationView } from '../_internal/record-views.js';
import { activationLimitOf } from '../_internal/effective.js';
import { borrowOf, isExpiredRow, isLive, lapseUnrecorded, leaseCounts } from '../_internal/lease.js';
import { recordLapse } from '../_internal/lease-audit.js';
import { leaseSecondsOf, planSeatsOf } from '../_internal/plan-seats.js';
import { timestampMs, toTimestamp } from '../_internal/time.js';
import { issuedAtOf } from '../_internal/revocations.js';
import type { Found } from './lookup.js';

/**
 * Floating seats in the client API (docs/floating-seats.md, "Leases"): check-outs, heartbeats and
 * borrows of one machine, inside the caller's unit of work, which holds the license row locked.
 */

/** The `lease` object of a client API answer on a floating plan. */
export interface LeaseAnswer {
  /** The plan's lease length when the lease was granted. */
  leaseSeconds: number;
  /** The stored lease end: the certificate's `expiresAt` is not later. */
  leaseExpiresAt: Timestamp;
  /** The borrow's end while the machine holds one, else null. */
  borrowedUntil: Timestamp | null;
}

/**
 * A heartbeat of a lease with less than this left also writes the license row, as a check-out does;
 * with at least this left it may renew without the license row lock ({@link quickRenewal}).
 */
export const LATE_HEARTBEAT_MS = 30_000;

/**
 * The most a validate's heartbeat may leave unrenewed (a sixth of the lease when that is shorter):
 * it renews the lease only when renewing would move `leaseExpiresAt` (or `lastSeenAt`) by at least
 * this, as a machine plan's validate writes `lastSeenAt` only when it moves by a minute. A sixth
 * of the lease is at most half the heartbeat interval (a third; the SDK calls at 0.3 of the lease
 * or later), so a client on its schedule always renews and only the calls between (app starts,
 * several processes) read.
 *
 * @example
 * ```ts
 * heartbeatResolutionMs(120); // 20000
 * heartbeatResolutionMs(900); // 60000
 * ```
 */
export function heartbeatResolutionMs(leaseSeconds: number): number {
  return Math.min(60_000, Math.floor(leaseSeconds / 6) * 1000);
}

/** What the machine asks for: its details (activate), and for a borrow its days. */
export interface SeatRequest {
  fingerprint: string;
  name: string | null;
  platform: string | null;
  appVersion: string | null;
  /** A borrow of this many days (already checked against the plan's `maxBorrowDays`). */
  borrowDays?: number;
}

/** The seat held after {@link holdSeat}: the activation as written, the answer's lease, and whether the row is new. */
export interface HeldSeat {
  activation: ActivationRecord;
  lease: LeaseAnswer;
  created: boolean;
}

function inUseMessage(limit: number): string {
  const inUse = limit === 1 ? 'the one activation of this license is in use' : `all ${limit} activations of this license are in use`;
  return `${inUse}: free a machine or wait for a lease to end`;
}

/**
 * The lease a validate answers without writing anything, or null when its heartbeat must renew (in
 * a locked unit, {@link holdSeat}): the machine's lease is live, its platform and app version are
 * unchanged, and renewing now would move neither `leaseExpiresAt` nor `lastSeenAt` by
 * {@link heartbeatResolutionMs} or more. The answer carries the stored lease end, so the certificate
 * it is signed into ends there (never after the stored lease), at most that resolution sooner than a
 * renewed one would.
 */
export function keptLease(found: Found, req: Pick<SeatRequest, 'platform' | 'appVersion'>, nowMs: number): LeaseAnswer | null {
  const row = found.activation;
  if (row === null || row.leaseExpiresAt == null || !isLive(row, nowMs)) return null;
  if ((req.platform ?? row.platform) !== row.platform || (req.appVersion ?? row.appVersion) !== row.appVersion) return null;
  const leaseSeconds = leaseSecondsOf(found.plan);
  const resolution = heartbeatResolutionMs(leaseSeconds);
  const renewedEnd = (Math.floor(nowMs / 1000) + leaseSeconds) * 1000;
  if (nowMs - timestampMs(row.lastSeenAt) >= resolution || renewedEnd - timestampMs(row.leaseExpiresAt) >= resolution) return null;
  return { leaseSeconds, leaseExpiresAt: row.leaseExpiresAt, borrowedUntil: borrowOf(row, nowMs) };
}

/**
 * The renewal of a heartbeat that needs no license row lock (docs/decisions/license-engine.md,
 * "Renewing without the license lock"), or null when it must take the locked path ({@link holdSeat}): the
 * machine's lease is live with at least {@link LATE_HEARTBEAT_MS} left, no borrow is recorded, and
 * its platform and app version are unchanged. Such a renewal changes no seat count: it moves
 * `lastSeenAt` and `leaseExpiresAt` exactly as {@link holdSeat} would (which then writes neither
 * the license row nor an audit event), and the caller stores it with `updateIfUnchanged` against
 * the record it read, so any change since (a lapse recorded, a borrow, a plan change, a freed
 * machine, another renewal) sends it to the locked path instead.
 */
export function quickRenewal(found: Found, req: Pick<SeatRequest, 'platform' | 'appVersion'>, nowMs: number): HeldSeat | null {
  const row = found.activation;
  if (row === null || row.leaseExpiresAt == null || (row.borrowedUntil ?? null) !== null) return null;
  if (timestampMs(row.leaseExpiresAt) - nowMs < LATE_HEARTBEAT_MS) return null;
  if ((req.platform ?? row.platform) !== row.platform || (req.appVersion ?? row.appVersion) !== row.appVersion) return null;
  const leaseSeconds = leaseSecondsOf(found.plan);
  const issuedAt = issuedAtOf(nowMs, row);
  const leaseExpiresAt = later(row.leaseExpiresAt, toTimestamp((issuedAt + leaseSeconds) * 1000));
  const activation = { ...row, lastSeenAt: toTimestamp(nowMs), leaseExpiresAt, borrowedUntil: null };
  return { activation, lease: { leaseSeconds, leaseExpiresAt, borrowedUntil: null }, created: false };
}

/**
 * Writes `next` over the activation `read` (held): only while the stored row is still `read` where
 * the store can check it, since a renewal without the license lock ({@link quickRenewal}) may have
 * changed it since this unit read it; a change fails the unit and `transact` runs it again.
 */
export async function replaceActivation(tx: StoreTx, read: ActivationRecord, next: ActivationRecord): Promise<void> {
  if (tx.updateIfUnchanged) await tx.updateIfUnchanged('activations', read, next);
  else await tx.update('activations', next, { defer: true });
}

const later = (a: Timestamp | null, b: Timestamp): Timestamp => (a !== null && timestampMs(a) > timestampMs(b) ? a : b);

/**
 * Checks a seat out for the machine, or renews its live lease (a heartbeat), and with
 * `borrowDays` borrows it. A check-out counts the other machines' live leases against the
 * activation limit (`activation_limit` when none is free), records lapses it sees and removes rows
 * lapsed for 30 days; a borrow beyond `maxBorrowedSeats` is `borrow_limit`. Refusals change nothing.
 * A machine without a row gets one (`activation.created`); the caller refuses closed accounts.
 */
export async function holdSeat(ctx: EngineContext, tx: StoreTx, found: Found, req: SeatRequest): Promise<HeldSeat> {
  const { license, plan, account } = found;
  const nowMs = ctx.clock.now();
  const at = toTimestamp(nowMs);
  const row = found.activation;
  // The certificate's issuedAt (see prepareCertificate), so the lease it carries ends where the stored one does.
  const issuedAt = issuedAtOf(nowMs, row ?? { certificatesFrom: found.freedAt === null ? null : found.freedAt + 1 });
  const leaseSeconds = leaseSecondsOf(plan);
  const live = row !== null && isLive(row, nowMs);
  let activationCount = license.activationCount;
  let writeLicense = !live || req.borrowDays !== undefined || timestampMs(row.leaseExpiresAt!) - nowMs < LATE_HEARTBEAT_MS;

  if (!live || req.borrowDays !== undefined) {
    const others = (await tx.findMany('activations', { licenseId: license.id })).filter((a) => a.fingerprint !== req.fingerprint);
    const counts = leaseCounts(others, nowMs);
    const limit = activationLimitOf(license, plan);
    if (!live && counts.live >= limit) throw new LicensingError('activation_limit', inUseMessage(limit));
    if (req.borrowDays !== undefined) {
      const borrowLimit = planSeatsOf(plan).maxBorrowedSeats ?? limit;
      if (counts.borrowed >= borrowLimit) {
        throw new LicensingError('borrow_limit', `${counts.borrowed} machine(s) of this license already borrow a seat, the most the plan allows`);
      }
    }
    if (!live) activationCount -= await tidyLapsed(ctx, tx, found, others, nowMs);
  }

  const borrowing = live ? borrowOf(row, nowMs) : null;
  const borrowedUntil = req.borrowDays === undefined ? borrowing : later(borrowing, toTimestamp((issuedAt + req.borrowDays * 86_400) * 1000));
  let leaseExpiresAt = toTimestamp((issuedAt + leaseSeconds) * 1000);
  if (live) leaseExpiresAt = later(row.leaseExpiresAt!, leaseExpiresAt);
  if (borrowedUntil !== null) leaseExpiresAt = later(borrowedUntil, leaseExpiresAt);

  let activation: ActivationRecord;
  if (row) {
    const base = lapseUnrecorded(row, nowMs) ? await recordLapse(ctx, tx, row, account) : row;
    activation = {
      ...base,
      lastSeenAt: at,
      name: req.name ?? base.name,
      platform: req.platform ?? base.platform,
      appVersion: req.appVersion ?? base.appVersion,
      leaseExpiresAt,
      borrowedUntil,
    };
    await replaceActivation(tx, row, activation);
  } else {
    activation = { ...newActivation(ctx, license, req, at, found.freedAt), leaseExpiresAt, borrowedUntil };
    await tx.insert('activations', activation, { defer: true });
    activationCount++;
    writeLicense = true;
    const created = activation;
    await audit(ctx, tx, {
      accountId: license.accountId,
      type: 'activation.created',
      licenseId: license.id,
      data: { activation: created.id, fingerprint: req.fingerprint },
      account,
      view: () => activationView(created, nowMs),
    });
  }
  if (writeLicense) {
    const counted = activationCount !== license.activationCount;
    const next = { ...license, activationCount, leaseSeq: (license.leaseSeq ?? 0) + 1, ...(counted ? { updatedAt: at } : {}) };
    await tx.update('licenses', next, { defer: true });
  }
  if (req.borrowDays !== undefined) {
    const borrowed = activation;
    await audit(ctx, tx, {
      accountId: license.accountId,
      type: 'lease.borrowed',
      licenseId: license.id,
      data: { activation: borrowed.id, fingerprint: borrowed.fingerprint, borrowedUntil: borrowedUntil!, days: req.borrowDays },
      account,
      view: () => activationView(borrowed, nowMs),
    });
  }
  return { activation, lease: { leaseSeconds, leaseExpiresAt, borrowedUntil }, created: row === null };
}

/**
 * The housekeeping of a check-out: records the lapses of the other machines not recorded yet, and
 * removes their rows lapsed for 30 days (`activation.deleted`, source `lapsed`). Answers how many
 * rows it removed.
 */
async function tidyLapsed(ctx: EngineContext, tx: StoreTx, found: Found, others: ActivationRecord[], nowMs: number): Promise<number> {
  let removed = 0;
  for (const other of others) {
    if (!lapseUnrecorded(other, nowMs) && !isExpiredRow(other, nowMs)) continue;
    const marked = await recordLapse(ctx, tx, other, found.account);
    if (!isExpiredRow(other, nowMs)) {
      await replaceActivation(tx, other, marked);
      continue;
    }
    await tx.delete('activations', other.id, { defer: true });
    removed++;
    await audit(ctx, tx, {
      accountId: other.accountId,
      type: 'activation.deleted',
      licenseId: other.licenseId,
      data: { activation: other.id, fingerprint: other.fingerprint, source: 'lapsed' },
      account: found.account,
      view: () => activationView(marked, nowMs),
    });
  }
  return removed;
}
