// `@svc-licensing/verifier/node`: the parts of the client SDK that need Node built-ins (node:fs,
// node:child_process), for Node and the Electron main process. Kept out of the main entry so the
// browser build never reaches them.
export { createFileStorage } from './storage-file.js';
export { readMachineId } from './client-machine-id.js';
export type { ReadMachineIdOptions } from './client-machine-id.js';
