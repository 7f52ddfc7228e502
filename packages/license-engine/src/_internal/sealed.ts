import type { EngineContext } from './context.js';
import type { LicenseRecord } from './records.js';

/** Seals a license key for its license (`license-key`, bound to the license's ID). */
export function sealLicenseKey(ctx: Pick<EngineContext, 'secrets'>, licenseId: string, key: string): string {
  return ctx.secrets.encrypt(new TextEncoder().encode(key), { purpose: 'license-key', record: licenseId });
}

/** The clear license key of a license record. */
export function openLicenseKey(ctx: Pick<EngineContext, 'secrets'>, license: Pick<LicenseRecord, 'id' | 'keyEncrypted'>): string {
  return new TextDecoder().decode(ctx.secrets.decrypt(license.keyEncrypted, { purpose: 'license-key', record: license.id }));
}
