import { oldestFirst } from './oldest-first.js';

/**
 * Which license keys this server process has seen answered as floating (docs/floating-seats.md,
 * "Rate limits (amended)"), so their calls are counted per key and machine instead of per key and
 * address. Decided before a call runs, from earlier answers: a key's first call after a start, and
 * every call of a key never answered with a `lease` (an unknown or guessed key), count against the
 * machine buckets. Bounded: past `max` keys the oldest are forgotten (they count as machine keys
 * again until their next floating answer).
 */

/** A key unseen for this long (or its lease, when longer) is forgotten. */
const FORGET_AFTER_MS = 10 * 60_000;
const DEFAULT_MAX_KEYS = 100_000;

/** The per key + fingerprint budget per hour for a lease length: three times the heartbeat rate, at least 30. */
export function floatingBudgetPerHour(leaseSeconds: number): number {
  return Math.max(30, Math.ceil((3 * 3600) / Math.max(1, Math.floor(leaseSeconds / 3))));
}

/** The limiter key of one machine of a floating license key (by the key's hash and the fingerprint). */
export function floatingMachineBucket(keyHash: string, fingerprint: string): string {
  return `client-fkey:${keyHash}:${fingerprint}`;
}

/** What the process remembers of floating keys. */
export interface FloatingKeys {
  /** The lease length the key was last answered with, or null when it is not (or no longer) known as floating. */
  leaseSecondsOf(keyHash: string, now: number): number | null;
  /** After a successful client answer: with a `lease` the key is floating, without one it is not. */
  answered(keyHash: string, leaseSeconds: number | null, now: number): void;
}

/**
 * A key answered again within this long of its move to the end of the map keeps its place (its
 * `seenAt` updated in place): a heartbeat then costs no Map delete and insert, and eviction stays
 * oldest-first to within this.
 */
const REORDER_AFTER_MS = 60_000;

/** A bounded in-process map of floating keys. */
export function createFloatingKeys(max = DEFAULT_MAX_KEYS): FloatingKeys {
  // Insertion order is last-answer order to within REORDER_AFTER_MS: the first entries are the oldest.
  const keys = new Map<string, { leaseSeconds: number; seenAt: number; movedAt: number }>();
  const dropOldest = oldestFirst(keys);
  return {
    leaseSecondsOf(keyHash, now) {
      const known = keys.get(keyHash);
      if (!known) return null;
      if (now - known.seenAt > Math.max(FORGET_AFTER_MS, known.leaseSeconds * 1000)) {
        keys.delete(keyHash);
        return null;
      }
      return known.leaseSeconds;
    },
    answered(keyHash, leaseSeconds, now) {
      const known = keys.get(keyHash);
      if (known !== undefined && leaseSeconds !== null && now - known.movedAt < REORDER_AFTER_MS) {
        known.leaseSeconds = leaseSeconds;
        known.seenAt = now;
        return;
      }
      if (known !== undefined) keys.delete(keyHash);
      if (leaseSeconds === null) return;
      keys.set(keyHash, { leaseSeconds, seenAt: now, movedAt: now });
      while (keys.size > max) dropOldest();
    },
  };
}

/** The limits {@link clientBuckets} reads. */
interface ClientLimits {
  clientPerKeyAndIp: number;
  clientPerIp: number;
  clientFloatingPerIp: number;
  windowMs: number;
}

/**
 * The buckets one client API call counts against: a key known as floating by its key and
 * machine and by its address's floating budget; any other call by its address, and with a key by
 * key and address (the contract's limits).
 */
export function clientBuckets(
  limits: ClientLimits,
  floating: FloatingKeys,
  call: { ip: string; keyHash: string | null; fingerprint: unknown; now: number },
): Array<{ key: string; limit: number }> {
  const { ip, keyHash, fingerprint, now } = call;
  const leaseSeconds = keyHash !== null && typeof fingerprint === 'string' ? floating.leaseSecondsOf(keyHash, now) : null;
  if (leaseSeconds !== null) {
    const perMachine = Math.max(1, Math.round((floatingBudgetPerHour(leaseSeconds) * limits.windowMs) / 3_600_000));
    return [
      { key: `client-fip:${ip}`, limit: limits.clientFloatingPerIp },
      { key: floatingMachineBucket(keyHash!, fingerprint as string), limit: perMachine },
    ];
  }
  const buckets = [{ key: `client-ip:${ip}`, limit: limits.clientPerIp }];
  if (keyHash !== null) buckets.push({ key: `client-key:${keyHash}:${ip}`, limit: limits.clientPerKeyAndIp });
  return buckets;
}
