import { describe, expect, it } from 'vitest';
import { decodeLicenseState, emptyLicenseState, encodeLicenseState, type LicenseStorage } from '../src/storage.js';

/**
 * The conformance suite every storage adapter passes: what the client relies on. `open` returns an
 * adapter; `reopen` (when the adapter persists) returns a second adapter over the same place.
 */
export function testLicenseStorage(name: string, setup: () => { open: () => LicenseStorage; persistent: boolean }): void {
  describe(`${name} storage`, () => {
    it('reads null before anything is written', async () => {
      const { open } = setup();
      expect(await open().read()).toBeNull();
    });

    it('reads back exactly the last document written', async () => {
      const storage = setup().open();
      const state = { ...emptyLicenseState('prd_1'), key: 'APP-AAAAA', certificate: 'CRT1.x.y', highestIssuedAt: 1_767_225_600 };
      await storage.write(encodeLicenseState(state));
      await storage.write(encodeLicenseState({ ...state, certificate: 'CRT1.new.sig' }));
      const text = await storage.read();
      expect(decodeLicenseState(text, 'prd_1')).toEqual({ ...state, certificate: 'CRT1.new.sig' });
    });

    it('keeps unicode and large documents intact', async () => {
      const storage = setup().open();
      const text = JSON.stringify({ licensee: 'Zoë Ørsted 你好', pad: 'x'.repeat(200_000) });
      await storage.write(text);
      expect(await storage.read()).toBe(text);
    });

    it('is seen by a second adapter over the same place when persistent', async () => {
      const { open, persistent } = setup();
      const first = open();
      await first.write('{"format":"svc-license-state-v1"}');
      const second = open();
      expect(await second.read()).toBe(persistent ? '{"format":"svc-license-state-v1"}' : null);
    });
  });
}
