// Regenerates test-vectors/crt1.json (deterministic). Run: pnpm vectors
import { writeFileSync } from 'node:fs';
import { buildVectors, serializeVectors } from './cases.js';

const target = new URL('./crt1.json', import.meta.url);
const vectors = buildVectors();
writeFileSync(target, serializeVectors(vectors));
console.log(`wrote ${vectors.cases.length} cases and ${vectors.keyNormalization.length} key normalizations to test-vectors/crt1.json`);
