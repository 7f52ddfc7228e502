import type { StoreTx } from './store.js';

/**
 * How long a release waits for a running webhook unit to carry it before it is written in a unit
 * of its own (a carrier held up by a lock must not hold the webhook's answer for longer).
 */
export const RELEASE_CARRY_WAIT_MS = 1_000;

/**
 * Key e-mail releases (the delete of a reservation once its e-mail went out or failed) waiting for
 * a unit of work. While a webhook's unit is running in this engine, a release waits for one to
 * carry it: the unit deletes every waiting reservation with its own commit, so a purchase under
 * load commits once per event and not once more for its e-mail. With no webhook unit running (an
 * idle engine, a send-key) releases are written at once, those asked for meanwhile together
 * (`writeOwn`, a group commit). A release settles when its delete has committed.
 */
export interface KeyEmailReleases {
  /** Ends the reservation of `licenseId`; resolves once that is committed. */
  release(licenseId: string): Promise<void>;
  /**
   * Runs a webhook unit (`run`, which may rerun its store transaction) that carries the releases
   * waiting when its work ends: the work calls `fold(tx, kept)` last, in each run; `kept` is the
   * license whose reservation the unit itself took, which a waiting release must not delete (the
   * unit replaced the reservation it was for). The releases settle with `run`: done when it
   * resolves, waiting again when it rejects (the unit wrote nothing).
   */
  carry<T>(run: (fold: (tx: StoreTx, kept: string | null) => Promise<void>) => Promise<T>): Promise<T>;
}

interface Waiting {
  licenseId: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The engine's key e-mail releases. `writeOwn(licenseId)`: writes one release in a unit of its own,
 * grouped with others asked for meanwhile (`coalesce`).
 */
export function createKeyEmailReleases(writeOwn: (licenseId: string) => Promise<void>): KeyEmailReleases {
  let waiting: Waiting[] = [];
  let carriers = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const writeWaiting = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const batch = waiting;
    waiting = [];
    for (const w of batch) writeOwn(w.licenseId).then(w.resolve, w.reject);
  };
  const waitForCarrier = () => {
    if (carriers === 0) return writeWaiting();
    if (timer !== null) return;
    timer = setTimeout(writeWaiting, RELEASE_CARRY_WAIT_MS);
    (timer as { unref?: () => void }).unref?.();
  };

  return {
    release(licenseId) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ licenseId, resolve, reject });
        waitForCarrier();
      });
    },
    async carry(run) {
      carriers++;
      const taken: Waiting[] = [];
      const fold = async (tx: StoreTx, kept: string | null) => {
        // A rerun deletes again what its rolled-back run took, and whatever waits now.
        taken.push(...waiting);
        waiting = [];
        if (timer !== null && taken.length > 0) clearTimeout(timer), (timer = null);
        for (const id of new Set(taken.map((w) => w.licenseId))) {
          if (id !== kept) await tx.delete('emailReservations', id, { defer: true });
        }
      };
      try {
        const result = await run(fold);
        for (const w of taken) w.resolve();
        return result;
      } catch (error) {
        waiting.unshift(...taken);
        throw error;
      } finally {
        carriers--;
        if (waiting.length > 0) waitForCarrier();
      }
    },
  };
}
