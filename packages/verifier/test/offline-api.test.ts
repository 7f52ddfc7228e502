import { describe, expect, it } from 'vitest';
import * as verifier from '@svc-licensing/verifier';

// The offline verification part of the public API; renaming one of these is a breaking change.
// (The client SDK adds its own exports to the same entry.)
describe('public API: offline verification', () => {
  it('exports verifyCertificate, the outcomes, backend selection and machineFingerprint', () => {
    expect(Object.keys(verifier)).toEqual(
      expect.arrayContaining([
        'verifyCertificate',
        'VERIFICATION_OUTCOMES',
        'CLOCK_ROLLBACK_TOLERANCE_SECONDS',
        'availableBackends',
        'selectedBackend',
        'machineFingerprint',
        'verifyRevocationList',
        'REVOCATION_LIST_OUTCOMES',
      ]),
    );
  });

  it('lists the spec\'s nine outcomes, valid first, with RVL1\'s revoked at its place after wrong_machine', () => {
    expect(verifier.VERIFICATION_OUTCOMES).toEqual([
      'valid', 'malformed', 'invalid_signature', 'wrong_product', 'wrong_machine', 'revoked', 'expired', 'not_usable', 'version_not_covered', 'clock_tampered',
    ]);
    expect(verifier.REVOCATION_LIST_OUTCOMES).toEqual(['valid', 'malformed', 'invalid_signature', 'wrong_product']);
    expect(verifier.CLOCK_ROLLBACK_TOLERANCE_SECONDS).toBe(86_400);
  });
});
