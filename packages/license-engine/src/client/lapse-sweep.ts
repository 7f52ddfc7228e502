import type { ActivationRecord } from '../_internal/records.js';
import type { EngineContext } from '../_internal/context.js';
import { transact } from '../_internal/context.js';
import { lapseUnrecorded } from '../_internal/lease.js';
import { recordLapse } from '../_internal/lease-audit.js';
import { replaceActivation } from './seats.js';

/** Activations read per page of a sweep, and the most licenses one unit of work records for. */
const SWEEP_PAGE = 200;

/** What one {@link sweepLapsedLeases} did. */
export interface SweepResult {
  /** `lease.expired` events recorded by this sweep (lapses another call recorded first are not counted). */
  recorded: number;
  /** Activations read. */
  scanned: number;
}

/**
 * The optional sweeper of floating seats (docs/floating-seats.md, "The sweeper"): records
 * `lease.expired` for every lapsed lease not recorded yet, so a license nobody calls any more still
 * gets its events. It pages through the activations without locks; each page's licenses with an
 * unrecorded lapse are one unit of work, which locks those license rows (in id order) before
 * reading their activations again and records each lapse still unrecorded, exactly as a check-out
 * on the license would. It changes no count, frees no seat and removes no row: counts never depend
 * on it. Idempotent, and safe to run on any number of instances at once: a lapse is recorded in the
 * same unit as its marker on the activation row, under the license's lock (on Galera, two units
 * recording one lapse both write that row, and certification runs the loser again, which then finds
 * it recorded).
 */
export async function sweepLapsedLeases(ctx: EngineContext): Promise<SweepResult> {
  let cursor: string | null = null;
  let recorded = 0;
  let scanned = 0;
  for (;;) {
    const page = await transact(ctx, (tx) => tx.page('activations', { cursor, limit: SWEEP_PAGE, order: 'asc' }), { readOnly: true });
    scanned += page.data.length;
    const nowMs = ctx.clock.now();
    const licenseIds = [...new Set(page.data.filter((a) => lapseUnrecorded(a, nowMs)).map((a) => a.licenseId))].sort();
    if (licenseIds.length > 0) recorded += await recordLapsesOf(ctx, licenseIds);
    if (page.nextCursor === null) return { recorded, scanned };
    cursor = page.nextCursor;
  }
}

/** One unit: locks the licenses, then records the unrecorded lapses of their activations as they are now. */
async function recordLapsesOf(ctx: EngineContext, licenseIds: readonly string[]): Promise<number> {
  return transact(ctx, async (tx) => {
    // Every license row first: the activations are then read after every lock is held, so no change
    // made under one of those locks is missed (the unit's first plain read comes after them).
    const licenses = [];
    for (const id of licenseIds) {
      const license = await tx.get('licenses', id, { lock: true });
      if (license) licenses.push(license);
    }
    const nowMs = ctx.clock.now();
    let recorded = 0;
    for (const license of licenses) {
      const account = (await tx.get('accounts', license.accountId)) ?? undefined;
      const lapsed = (await tx.findMany('activations', { licenseId: license.id })).filter((a: ActivationRecord) => lapseUnrecorded(a, nowMs));
      for (const activation of lapsed) {
        await replaceActivation(tx, activation, await recordLapse(ctx, tx, activation, account));
        recorded++;
      }
    }
    return recorded;
  });
}
