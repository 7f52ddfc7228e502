import type { EngineContext } from '../_internal/context.js';

/**
 * Which floating machines' validates will renew (docs/floating-seats.md, rule 5): a heartbeat on
 * the SDK's schedule comes a third of the lease after the last renewal and always renews, so its
 * read-only attempt finds only that it must write, and costs a unit for nothing (a round trip on
 * MySQL, a second pass through the embedded store's queue). When this process saw the machine's
 * lease (renewed or kept) it knows from when on a validate renews; from then on validate goes
 * straight to the locked unit, which decides as always (it answers the stored lease when another
 * process renewed it meanwhile), so a wrong hint costs time, never a different answer.
 */

/** How many machines' hints are kept before starting over (it only saves units). */
const RENEWALS_MAX = 100_000;

const hintKey = (keyHash: string, fingerprint: string): string => `${keyHash}:${fingerprint}`;

/** True when the machine's validate is known to renew now: run the locked unit first. */
export function renewsNow(ctx: EngineContext, keyHash: string, fingerprint: string): boolean {
  const due = ctx.renewalsDue.get(hintKey(keyHash, fingerprint));
  return due !== undefined && ctx.clock.now() >= due;
}

/** Records from a validate's answer when the machine's next validate renews (`dueAt`, ms), or forgets it (null: no lease). */
export function noteRenewal(ctx: EngineContext, keyHash: string, fingerprint: string, dueAt: number | null): void {
  const key = hintKey(keyHash, fingerprint);
  if (dueAt === null) {
    ctx.renewalsDue.delete(key);
    return;
  }
  if (ctx.renewalsDue.size >= RENEWALS_MAX && !ctx.renewalsDue.has(key)) ctx.renewalsDue.clear();
  ctx.renewalsDue.set(key, dueAt);
}
