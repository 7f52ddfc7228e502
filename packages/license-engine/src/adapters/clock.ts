import type { Clock } from '../_internal/ports.js';

/**
 * The real clock: `Date.now()`.
 *
 * @example
 * ```ts
 * const engine = createLicenseEngine({ store, clock: systemClock, random: cryptoRandom, ids, secrets });
 * ```
 */
export const systemClock: Clock = { now: () => Date.now() };
