import type { ActivationRecord, LicenseRecord, Timestamp } from './records.js';
import type { EngineContext } from './context.js';

/**
 * A machine's new activation of `license` at `at`, seen now: the record both seat modes insert.
 * `freedAt`: the machine's freeing still on the product's revocation list (`Found.freedAt`), after
 * which its certificates are issued.
 */
export function newActivation(
  ctx: EngineContext,
  license: LicenseRecord,
  machine: { fingerprint: string; name: string | null; platform: string | null; appVersion: string | null },
  at: Timestamp,
  freedAt: number | null,
): ActivationRecord {
  return {
    id: ctx.ids.next('act'),
    accountId: license.accountId,
    licenseId: license.id,
    fingerprint: machine.fingerprint,
    name: machine.name,
    platform: machine.platform,
    appVersion: machine.appVersion,
    createdAt: at,
    lastSeenAt: at,
    ...(freedAt !== null ? { certificatesFrom: freedAt + 1 } : {}),
  };
}
