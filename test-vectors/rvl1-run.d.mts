import type { RevocationListCase, RevocationVectorFile, RevokedCertificateCase } from './rvl1-cases.js';
type Verifier = typeof import('@svc-licensing/verifier');
export declare function revocationListOutcome(verifier: Verifier, file: RevocationVectorFile, c: RevocationListCase, backend?: string): Promise<string>;
export declare function revokedCertificateOutcome(verifier: Verifier, file: RevocationVectorFile, c: RevokedCertificateCase, backend?: string): Promise<string>;
export declare function runRevocationVectors(verifier: Verifier, file: RevocationVectorFile, backend?: string): Promise<[string, string, string][]>;
