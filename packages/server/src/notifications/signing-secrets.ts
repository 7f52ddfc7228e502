/**
 * An endpoint's signing secrets over a rotation: the current one, and for 24 hours after a rotation
 * the previous one too, so a vendor can deploy the new secret without refusing a notification.
 */

/** How long the previous secret keeps signing after a rotation: 24 hours. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** An endpoint's secrets (plain here; the store keeps them sealed). */
export interface SigningSecrets {
  current: string;
  /** The secret before the last rotation and when it stops signing (epoch ms); null when none. */
  previous: { secret: string; expiresAt: number } | null;
}

/**
 * The secrets after a rotation at `now`: `next` becomes current, the current one signs beside it
 * for 24 hours. A rotation within the overlap drops the older previous secret (two at most sign).
 *
 * @example
 * ```ts
 * rotateSigningSecrets({ current: oldSecret, previous: null }, generateWebhookSecret(), Date.now());
 * // { current: <new>, previous: { secret: oldSecret, expiresAt: now + 86_400_000 } }
 * ```
 */
export function rotateSigningSecrets(secrets: SigningSecrets, next: string, now: number): SigningSecrets {
  return { current: next, previous: { secret: secrets.current, expiresAt: now + ROTATION_OVERLAP_MS } };
}

/**
 * The secrets that sign an attempt made at `now`: the current one first, then the previous one
 * while its overlap lasts.
 *
 * @example
 * ```ts
 * activeSigningSecrets(rotated, now + 1000);          // [newSecret, oldSecret]
 * activeSigningSecrets(rotated, now + 86_400_000);    // [newSecret]
 * ```
 */
export function activeSigningSecrets(secrets: SigningSecrets, now: number): string[] {
  return secrets.previous !== null && now < secrets.previous.expiresAt ? [secrets.current, secrets.previous.secret] : [secrets.current];
}
