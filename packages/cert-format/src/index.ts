export { LICENSE_STATUSES, USABLE_STATUSES, isUsableStatus, isLicenseStatus } from './status.js';
export type { LicenseStatus } from './status.js';
export { CertFormatError } from './errors.js';
export type { CertFormatErrorCode } from './errors.js';
export { base64urlEncode, base64urlDecode } from './base64url.js';
export {
  CERTIFICATE_PREFIX,
  REFRESH_INTERVAL_SECONDS,
  certificateTimes,
  encodePayload,
  assertCertificatePayload,
} from './payload.js';
export type { CertificatePayload, CertificateTimesInput } from './payload.js';
export { decodeCertificate } from './decode.js';
export type { DecodedCertificate } from './decode.js';
export { machineFingerprint, isFingerprint } from './fingerprint.js';
export {
  LICENSE_KEY_ALPHABET,
  LICENSE_KEY_GROUPS,
  LICENSE_KEY_GROUP_LENGTH,
  generateLicenseKey,
  normalizeLicenseKey,
  hashLicenseKey,
  isWellFormedLicenseKey,
} from './license-key.js';
export {
  ACTIVATION_REQUEST_PREFIX,
  ACTIVATION_REQUEST_FIELD_MAX,
  encodeActivationRequest,
  parseActivationRequest,
} from './activation-request.js';
export type { ActivationRequest, ParsedActivationRequest } from './activation-request.js';
export { REVOCATION_LIST_PREFIX } from './revocation-list.js';
export type {
  RevokedLicenseEntry,
  FreedActivationEntry,
  RevocationListInput,
  RevocationIndex,
  RevocationListContent,
} from './revocation-list.js';
export { encodeRevocationList } from './revocation-encode.js';
export { decodeRevocationList } from './revocation-decode.js';
export type { DecodedRevocationList } from './revocation-decode.js';
export { parseRevocationPayload } from './revocation-parse.js';
export type { ParsedRevocationPayload } from './revocation-parse.js';
export { matchRevocation } from './revocation-match.js';
export type { RevocationSubject } from './revocation-match.js';
