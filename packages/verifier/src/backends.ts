import { nodeBackend } from './_internal/backend-node.js';
import { nobleBackend } from './_internal/backend-noble.js';
import { webCryptoBackend, webCryptoSupportsEd25519 } from './_internal/backend-webcrypto.js';
import type { BackendName, Ed25519Backend } from './_internal/backend-types.js';

export type { BackendName } from './_internal/backend-types.js';

/** Which Ed25519 backend to use: one by name, or `auto` (the default) to pick the fastest available. */
export type BackendChoice = BackendName | 'auto';

let auto: Promise<Ed25519Backend> | undefined;
let autoResolved: Ed25519Backend | undefined;

/** @internal The backend for `choice` without waiting, when it is already known (the hot path). */
export function knownBackend(choice: BackendChoice = 'auto'): Ed25519Backend | undefined {
  if (choice === 'auto') return autoResolved;
  if (choice === 'node') return nodeBackend();
  if (choice === 'noble') return nobleBackend;
  return undefined;
}

/** @internal Resolves a backend choice; throws for a named backend this runtime lacks. */
export async function resolveBackend(choice: BackendChoice = 'auto'): Promise<Ed25519Backend> {
  if (choice === 'auto') {
    auto ??= (async () => {
      autoResolved = nodeBackend() ?? ((await webCryptoSupportsEd25519()) ? webCryptoBackend : nobleBackend);
      return autoResolved;
    })();
    return auto;
  }
  if (choice === 'node') {
    const backend = nodeBackend();
    if (backend === undefined) throw new TypeError('the node backend is not available in this build (browser)');
    return backend;
  }
  if (choice === 'webcrypto') {
    if (!(await webCryptoSupportsEd25519())) throw new TypeError('crypto.subtle does not support Ed25519 in this runtime');
    return webCryptoBackend;
  }
  if (choice === 'noble') return nobleBackend;
  throw new TypeError(`backend must be auto, node, webcrypto or noble, got ${String(choice)}`);
}

/**
 * The Ed25519 backends this runtime offers, fastest first: `node` (node:crypto, Node and Electron's
 * main process), `webcrypto` (where `crypto.subtle` supports Ed25519: Chromium 137+, Electron 37+),
 * and `noble` (@noble/ed25519, pure JavaScript, loaded only when used; always available).
 * `auto` uses the first of them.
 *
 * @example
 * ```ts
 * import { availableBackends, verifyCertificate } from '@svc-licensing/verifier';
 * for (const backend of await availableBackends()) {
 *   console.log(backend, (await verifyCertificate(text, { ...options, backend })).outcome);
 * }
 * ```
 */
export async function availableBackends(): Promise<BackendName[]> {
  const names: BackendName[] = [];
  if (nodeBackend() !== undefined) names.push('node');
  if (await webCryptoSupportsEd25519()) names.push('webcrypto');
  names.push('noble');
  return names;
}

/**
 * The backend `auto` picks in this runtime.
 *
 * @example
 * ```ts
 * await selectedBackend(); // 'node' in Node, 'webcrypto' in Chromium 137+
 * ```
 */
export async function selectedBackend(): Promise<BackendName> {
  return (await resolveBackend('auto')).name;
}
