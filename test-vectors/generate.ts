// Regenerates test-vectors/crt1.json, rvl1.json and activation-request.json (deterministic). Run: pnpm vectors
import { writeFileSync } from 'node:fs';
import { buildRequestVectors, serializeRequestVectors } from './activation-requests.js';
import { buildVectors, serializeVectors } from './cases.js';
import { buildRevocationVectors, serializeRevocationVectors } from './rvl1-cases.js';

const vectors = buildVectors();
writeFileSync(new URL('./crt1.json', import.meta.url), serializeVectors(vectors));
console.log(`wrote ${vectors.cases.length} cases and ${vectors.keyNormalization.length} key normalizations to test-vectors/crt1.json`);

const requests = buildRequestVectors();
writeFileSync(new URL('./activation-request.json', import.meta.url), serializeRequestVectors(requests));
console.log(`wrote ${requests.cases.length} cases to test-vectors/activation-request.json`);

const revocations = buildRevocationVectors();
writeFileSync(new URL('./rvl1.json', import.meta.url), serializeRevocationVectors(revocations));
console.log(`wrote ${revocations.lists.length} list cases and ${revocations.certificates.length} certificate cases to test-vectors/rvl1.json`);
