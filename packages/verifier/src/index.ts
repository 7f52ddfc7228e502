export { verifyCertificate } from './verify.js';
export type { VerifyOptions, VerificationResult } from './verify.js';
export { VERIFICATION_OUTCOMES, CLOCK_ROLLBACK_TOLERANCE_SECONDS } from './outcomes.js';
export type { VerificationOutcome } from './outcomes.js';
export { availableBackends, selectedBackend } from './backends.js';
export type { BackendChoice, BackendName } from './backends.js';
export { machineFingerprint } from '@svc-licensing/cert-format';
export type { CertificatePayload } from '@svc-licensing/cert-format';
