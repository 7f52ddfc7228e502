import { describe, expect, it } from 'vitest';
import { advanceAll, app, DAY_MS, startServer } from '../support/sdk-server.js';

describe('SDK against the reference server: clock rolled back', () => {
  it('reports clock_tampered when the machine clock goes more than a day behind the highest issuedAt seen', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    await laptop.client.activate(licensed.key);
    advanceAll(server, [laptop], 3 * DAY_MS);
    const refreshed = await laptop.client.check();
    expect(refreshed).toMatchObject({ valid: true, offline: false });
    const highest = refreshed.payload!.issuedAt;
    expect(laptop.stored().highestIssuedAt).toBe(highest);

    // Back by exactly a day: still tolerated.
    laptop.clock.advance(-DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ valid: true });

    // Back by more than a day: refused, and no call to the server fixes it.
    laptop.clock.advance(-1000);
    const calls = server.clientCalls('validate');
    expect(await laptop.client.check()).toMatchObject({ valid: false, outcome: 'clock_tampered', reason: 'clock_tampered', offline: true });
    expect(server.clientCalls('validate')).toBe(calls);

    // Further back is refused too.
    laptop.clock.advance(-2 * DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ outcome: 'clock_tampered' });

    // Setting the clock right again restores the license.
    laptop.clock.advance(3 * DAY_MS + 1000);
    expect(await laptop.client.check()).toMatchObject({ valid: true });
  });
});
