import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEveryStore, type Harness } from '../support/harness.js';

// Real parallel requests over sockets to two app instances on one store (two processes of one
// deployment on MariaDB; the embedded store is one process's, so both apps share it).
const OPEN = { limits: { clientPerIp: 1_000_000, clientPerKeyAndIp: 1_000_000 } };

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

async function serve(h: Harness, action: string, body: unknown, peer: boolean) {
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const res = peer ? await h.peer!.fetch(`/v1/licenses/${action}`, init) : await h.fetch(`/v1/licenses/${action}`, init);
  return { status: res.status, body: await res.json() as any };
}

describeEveryStore('floating seats: races', (setup) => {
  it('50 machines racing for the last seat through two servers: one winner, live leases never above the limit', async () => {
    const h = await createHarness({ mode: 'node-server', store: setup.store }, OPEN, { peer: true });
    const { product, license } = await licensed(h, {}, { code: 'team', seatMode: 'floating', maxActivations: 3, leaseSeconds: 120 });
    const body = (n: number) => ({ product: product.id, key: license.key, fingerprint: fingerprint(product.id, n) });
    const start = h.clock.now();
    // Machine 0's lease lapses; machines 1 and 2 hold live ones: one seat is free.
    expect((await h.client('activate', body(0))).status).toBe(200);
    h.clock.set(iso(start + 60_000));
    for (const n of [1, 2]) expect((await h.client('activate', body(n))).status).toBe(200);
    h.clock.set(iso(start + 125_000));
    for (let round = 0; round < 2; round++) {
      const racers = Array.from({ length: 50 }, (_, i) => 100 + round * 50 + i);
      const answers = await Promise.all(racers.map((n, i) => serve(h, 'activate', body(n), i % 2 === 1)));
      const won = answers.filter((a) => a.status === 200);
      expect(won, `round ${round}`).toHaveLength(round === 0 ? 1 : 0);
      for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.error.code).toBe('activation_limit');
      const view = (await h.api('GET', `/licenses/${license.id}`)).body;
      expect(view.liveLeases).toBe(3);
      expect(view.activations.filter((a: any) => a.leaseState === 'live')).toHaveLength(3);
    }
  });

  it('a lapsed machine heartbeating races a newcomer for the one seat: exactly one holds it, every round', async () => {
    const h = await createHarness({ mode: 'node-server', store: setup.store }, OPEN, { peer: true });
    const { product, license } = await licensed(h, {}, { code: 'solo', seatMode: 'floating', maxActivations: 1, leaseSeconds: 120 });
    const body = (n: number) => ({ product: product.id, key: license.key, fingerprint: fingerprint(product.id, n) });
    let holder = 0;
    expect((await h.client('activate', body(holder))).status).toBe(200);
    for (let round = 1; round <= 6; round++) {
      h.clock.advance(125_000); // the holder's lease lapses
      const newcomer = round;
      const [beat, checkout] = await Promise.all([serve(h, 'validate', body(holder), round % 2 === 0), serve(h, 'activate', body(newcomer), round % 2 === 1)]);
      const winners = [beat, checkout].filter((a) => a.status === 200);
      expect(winners, `round ${round}: ${beat.status} ${checkout.status}`).toHaveLength(1);
      const loser = beat.status === 200 ? checkout : beat;
      expect(loser.status).toBe(409);
      expect(loser.body.error.code).toBe('activation_limit');
      if (checkout.status === 200) holder = newcomer;
      const view = (await h.api('GET', `/licenses/${license.id}`)).body;
      expect(view.liveLeases).toBe(1);
      expect(view.activations.filter((a: any) => a.leaseState === 'live').map((a: any) => a.fingerprint)).toEqual([fingerprint(product.id, holder)]);
    }
  });
});
