import { describe, expect, it } from 'vitest';
import * as universal from '@svc-licensing/cert-format';
import * as sign from '@svc-licensing/cert-format/sign';

// Renaming or removing an export is a breaking change: this list makes it a visible decision.
describe('public API', () => {
  it('exports exactly these names from the universal entry', () => {
    expect(Object.keys(universal).sort()).toEqual([
      'ACTIVATION_REQUEST_FIELD_MAX', 'ACTIVATION_REQUEST_PREFIX', 'CERTIFICATE_PREFIX', 'CertFormatError', 'LICENSE_KEY_ALPHABET', 'LICENSE_KEY_GROUPS', 'LICENSE_KEY_GROUP_LENGTH',
      'LICENSE_STATUSES', 'REFRESH_INTERVAL_SECONDS', 'REVOCATION_LIST_PREFIX', 'USABLE_STATUSES', 'assertCertificatePayload', 'base64urlDecode',
      'base64urlEncode', 'certificateTimes', 'decodeCertificate', 'decodeRevocationList', 'encodeActivationRequest', 'encodePayload', 'encodeRevocationList',
      'generateLicenseKey', 'hashLicenseKey', 'isFingerprint', 'isLicenseStatus', 'isUsableStatus', 'isWellFormedLicenseKey', 'machineFingerprint',
      'matchRevocation', 'normalizeLicenseKey', 'parseActivationRequest', 'parseRevocationPayload',
    ]);
  });

  it('exports exactly these names from ./sign', () => {
    expect(Object.keys(sign).sort()).toEqual([
      'createCertificateSigner', 'generateSigningKeyPair', 'pkcs8ToSeed', 'publicKeyFromSeed', 'seedToPkcs8', 'signCertificate', 'signRevocationList',
    ]);
  });
});
