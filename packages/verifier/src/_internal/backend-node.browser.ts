import type { Ed25519Backend } from './backend-types.js';

/** @internal The browser build has no node:crypto backend. */
export function nodeBackend(): Ed25519Backend | undefined {
  return undefined;
}
