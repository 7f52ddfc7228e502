import type { VectorFile } from './cases.js';
import type { RevocationVectorFile } from './rvl1-cases.js';
export declare function checkVectorFile(doc: unknown): { ok: true; file: VectorFile } | { ok: false; problems: string[] };
export declare function checkRevocationVectorFile(doc: unknown): { ok: true; file: RevocationVectorFile } | { ok: false; problems: string[] };
