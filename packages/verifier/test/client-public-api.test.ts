import { describe, expect, it } from 'vitest';
import * as main from '../src/index.js';
import * as node from '../src/node.js';

// Pins the client SDK's runtime exports: a rename or removal is a visible decision.
describe('client SDK public API', () => {
  it('the main entry (Node, Electron, browsers) exports the client, its error and the universal storages', () => {
    const sdk = ['createLicenseClient', 'LicenseClientError', 'LICENSE_STATE_FORMAT', 'emptyLicenseState', 'encodeLicenseState', 'decodeLicenseState', 'createMemoryStorage', 'createLocalStorage'];
    expect(Object.keys(main)).toEqual(expect.arrayContaining(sdk));
    expect(Object.keys(main)).not.toContain('createFileStorage');
    expect(Object.keys(main)).not.toContain('readMachineId');
  });

  it('the /node entry exports exactly the parts that need Node built-ins', () => {
    expect(Object.keys(node).sort()).toEqual(['createFileStorage', 'readMachineId']);
  });
});
