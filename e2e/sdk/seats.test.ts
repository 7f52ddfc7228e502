import { describe, expect, it } from 'vitest';
import { app, startServer } from '../support/sdk-server.js';

describe('SDK against the reference server: seat release by deactivate', () => {
  it('deactivate frees the seat for another machine and deletes the stored certificate and key', async () => {
    const server = await startServer();
    const licensed = await server.license({ plan: { maxActivations: 1 } });
    const oldLaptop = app(server, licensed, 'machine-old');
    const newLaptop = app(server, licensed, 'machine-new');
    await oldLaptop.client.activate(licensed.key);
    await expect(newLaptop.client.activate(licensed.key)).rejects.toMatchObject({ code: 'activation_limit' });

    expect(await oldLaptop.client.deactivate()).toEqual({ released: true });
    expect(oldLaptop.stored()).toMatchObject({ key: null, certificate: null, refusal: null });
    expect(oldLaptop.stored().highestIssuedAt).not.toBeNull(); // the clock-rollback memory survives
    expect(await oldLaptop.client.check()).toMatchObject({ valid: false, reason: 'no_certificate' });
    await expect(oldLaptop.client.deactivate()).rejects.toMatchObject({ code: 'no_license_key' });

    expect(await newLaptop.client.activate(licensed.key)).toMatchObject({ valid: true });
  });

  it('deletes the stored certificate also when the server answers 404 (the seat was already freed)', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    const { activation } = await laptop.client.activate(licensed.key);
    await server.api('DELETE', `/activations/${activation}`);

    expect(await laptop.client.deactivate()).toEqual({ released: false });
    expect(laptop.stored()).toMatchObject({ key: null, certificate: null });
  });
});
