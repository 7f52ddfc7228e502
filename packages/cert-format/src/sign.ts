// Node-only entry (`@svc-licensing/cert-format/sign`): signing through node:crypto.
export { createCertificateSigner, signCertificate } from './signer.js';
export type { CertificateSigner } from './signer.js';
export { generateSigningKeyPair, publicKeyFromSeed, seedToPkcs8, pkcs8ToSeed } from './signing-keys.js';
export type { SigningPrivateKey } from './signing-keys.js';
export { signRevocationList } from './revocation-sign.js';
