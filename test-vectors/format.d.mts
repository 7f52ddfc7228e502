import type { VectorFile } from './cases.js';
export declare function checkVectorFile(doc: unknown): { ok: true; file: VectorFile } | { ok: false; problems: string[] };
