import { hashLicenseKey, isWellFormedLicenseKey, parseActivationRequest } from '@svc-licensing/cert-format';
import { LicensingError } from '../_internal/errors.js';
import type { LicenseRecord } from '../_internal/records.js';
import { activateParsed } from './client.js';
import type { EngineContext } from '../_internal/context.js';
import { owned, transact } from '../_internal/context.js';
import { asObject, invalid } from '../_internal/validate.js';

/** Input of an offline activation: the machine's request text and, when it carries no key, the license. */
export interface OfflineActivationInput {
  /** The `SVCREQ1.` text made by the SDK's `createActivationRequest()` (whitespace ignored). */
  request: string;
  /** The license to activate (`lic_...`); required when the request carries no key, else must match it. */
  license?: string;
}

/** The answer of an offline activation: the certificate to carry to the machine. */
export interface OfflineActivationResult {
  certificate: string;
  activation: string;
  license: string;
  product: string;
  fingerprint: string;
}

/** Who performs the activation: the vendor (any license of the account) or a signed-in customer (theirs only). */
export interface OfflineActivationScope {
  /** Restricts the license to this customer e-mail (lowercase), as the portal does. */
  customerEmail?: string;
}

/**
 * Activates the machine described by an activation request (air-gapped activation), under exactly
 * the rules and limits of `POST /licenses/activate` (usable status, `validUntil`, activation limit,
 * closed account; idempotent per fingerprint), and returns the certificate. Audited as
 * `activation.created` with `source: 'offline'`.
 */
export async function activateOffline(
  ctx: EngineContext,
  accountId: string,
  input: unknown,
  scope: OfflineActivationScope = {},
): Promise<OfflineActivationResult> {
  const body = asObject(input);
  const parsed = parseActivationRequest(body.request);
  if (!parsed.ok) invalid(`request: ${parsed.reason}`);
  const { request } = parsed;
  if (body.license !== undefined && (typeof body.license !== 'string' || body.license === '')) invalid('license must be a license ID');
  if (request.key !== undefined && !isWellFormedLicenseKey(request.key)) invalid('the request carries a license key that is not well formed');

  let keyHash = request.key === undefined ? null : hashLicenseKey(request.key);
  let licenseId: string | null = null;
  if (typeof body.license === 'string') {
    const license = await transact(ctx, (tx) => owned(tx, 'licenses', accountId, body.license, 'license'), { readOnly: true });
    if (scope.customerEmail !== undefined && license.customerEmail !== scope.customerEmail) {
      throw new LicensingError('not_found', `license ${license.id} not found`);
    }
    if (keyHash !== null && keyHash !== license.keyHash) invalid(`the request's license key is not the key of license ${license.id}`);
    if (license.productId !== request.product) invalid(`the request is for product ${request.product}, license ${license.id} is for another product`);
    keyHash = license.keyHash;
    licenseId = license.id;
  }
  if (keyHash === null) invalid('the request carries no license key: choose the license to activate');

  let activated: LicenseRecord | null = null;
  const result = await activateParsed(
    ctx,
    {
      product: request.product,
      keyHash,
      fingerprint: request.fingerprint,
      name: request.name ?? null,
      platform: request.platform ?? null,
      appVersion: request.appVersion,
    },
    'offline',
    {
      accountId,
      check: (license) => {
        if (scope.customerEmail !== undefined && license.customerEmail !== scope.customerEmail) {
          throw new LicensingError('unknown_key', 'no license with this key for this product');
        }
        activated = license;
      },
    },
  );
  const license = activated as LicenseRecord | null;
  // The offline answer travels by hand: the list goes its own way (docs/rvl1.md, "Carrying a list by hand").
  const { certificate, activation } = result;
  return { certificate, activation, license: license?.id ?? licenseId ?? '', product: request.product, fingerprint: request.fingerprint };
}
