import { createLicenseEngine, createMemoryStore, systemClock, cryptoRandom, createIdGenerator, createSecretBox } from '@svc-licensing/license-engine';
import { expect, it } from 'vitest';
import { createProduct } from '../support/fixtures.js';
import { createHarness, describeEveryStore } from '../support/harness.js';

describeEveryStore('floating plans over HTTP', (setup) => {
  it('creates floating plans with the lease defaults, machine plans with null lease fields, and keeps seatMode immutable', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const machine = await h.api('POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'subscription' });
    expect(machine.status).toBe(201);
    expect(machine.body).toMatchObject({ seatMode: 'machine', leaseSeconds: null, maxBorrowDays: null, maxBorrowedSeats: null });
    const floating = await h.api('POST', `/products/${product.id}/plans`, { code: 'team', kind: 'subscription', seatMode: 'floating', maxActivations: 10 });
    expect(floating.status).toBe(201);
    expect(floating.body).toMatchObject({ seatMode: 'floating', leaseSeconds: 900, maxBorrowDays: 0, maxBorrowedSeats: null, maxActivations: 10 });
    const explicit = await h.api('POST', `/products/${product.id}/plans`, {
      code: 'lab', kind: 'perpetual', seatMode: 'floating', leaseSeconds: 120, maxBorrowDays: 365, maxBorrowedSeats: 0,
    });
    expect(explicit.body).toMatchObject({ seatMode: 'floating', leaseSeconds: 120, maxBorrowDays: 365, maxBorrowedSeats: 0 });

    const changed = await h.api('PATCH', `/plans/${floating.body.id}`, { leaseSeconds: 86_400, maxBorrowDays: 7, maxBorrowedSeats: 2 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ seatMode: 'floating', leaseSeconds: 86_400, maxBorrowDays: 7, maxBorrowedSeats: 2 });
    const allSeats = await h.api('PATCH', `/plans/${floating.body.id}`, { maxBorrowedSeats: null });
    expect(allSeats.body.maxBorrowedSeats).toBeNull();

    for (const [planId, seatMode] of [[floating.body.id, 'machine'], [machine.body.id, 'floating'], [machine.body.id, 'machine']] as const) {
      const refused = await h.api('PATCH', `/plans/${planId}`, { seatMode });
      expect(refused.status, seatMode).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.message).toContain('seatMode');
    }
    expect((await h.api('GET', `/plans/${floating.body.id}`)).body).toMatchObject({ seatMode: 'floating', leaseSeconds: 86_400, maxBorrowDays: 7 });
    expect((await h.api('GET', `/plans/${machine.body.id}`)).body).toMatchObject({ seatMode: 'machine', leaseSeconds: null });
    const listed = await h.api('GET', `/products/${product.id}/plans`);
    expect(listed.body.data.map((p: any) => [p.code, p.seatMode])).toEqual([['lab', 'floating'], ['team', 'floating'], ['pro', 'machine']]);
  });

  it('refuses lease fields on machine plans (even their defaults) and out-of-range values, and changes nothing', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const machine = await h.api('POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'subscription' });
    const floating = await h.api('POST', `/products/${product.id}/plans`, { code: 'team', kind: 'subscription', seatMode: 'floating' });
    const create = (body: Record<string, unknown>) => h.api('POST', `/products/${product.id}/plans`, { code: 'x', kind: 'subscription', ...body });
    const refusals: [Record<string, unknown>, string][] = [
      [{ leaseSeconds: 900 }, 'leaseSeconds'],
      [{ seatMode: 'machine', maxBorrowDays: 0 }, 'maxBorrowDays'],
      [{ maxBorrowedSeats: null }, 'maxBorrowedSeats'],
      [{ seatMode: 'seat' }, 'seatMode'],
      [{ seatMode: null }, 'seatMode'],
      [{ seatMode: 'floating', leaseSeconds: 119 }, 'leaseSeconds'],
      [{ seatMode: 'floating', leaseSeconds: 86_401 }, 'leaseSeconds'],
      [{ seatMode: 'floating', leaseSeconds: 900.5 }, 'leaseSeconds'],
      [{ seatMode: 'floating', leaseSeconds: '900' }, 'leaseSeconds'],
      [{ seatMode: 'floating', leaseSeconds: null }, 'leaseSeconds'],
      [{ seatMode: 'floating', maxBorrowDays: -1 }, 'maxBorrowDays'],
      [{ seatMode: 'floating', maxBorrowDays: 366 }, 'maxBorrowDays'],
      [{ seatMode: 'floating', maxBorrowDays: 1.5 }, 'maxBorrowDays'],
      [{ seatMode: 'floating', maxBorrowedSeats: -1 }, 'maxBorrowedSeats'],
      [{ seatMode: 'floating', maxBorrowedSeats: 100_001 }, 'maxBorrowedSeats'],
      [{ seatMode: 'floating', maxBorrowedSeats: 'all' }, 'maxBorrowedSeats'],
    ];
    for (const [body, field] of refusals) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.message, JSON.stringify(body)).toContain(field);
    }
    const patchRefusals: [string, Record<string, unknown>, string][] = [
      [machine.body.id, { leaseSeconds: 900 }, 'leaseSeconds'],
      [machine.body.id, { maxBorrowDays: 0 }, 'maxBorrowDays'],
      [machine.body.id, { maxBorrowedSeats: null }, 'maxBorrowedSeats'],
      [floating.body.id, { leaseSeconds: 60 }, 'leaseSeconds'],
      [floating.body.id, { maxBorrowDays: 400 }, 'maxBorrowDays'],
      [floating.body.id, { name: 'Renamed', maxBorrowedSeats: 0.5 }, 'maxBorrowedSeats'],
    ];
    for (const [id, body, field] of patchRefusals) {
      const res = await h.api('PATCH', `/plans/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toContain(field);
    }
    const plans = await h.api('GET', `/products/${product.id}/plans`);
    expect(plans.body.data.map((p: any) => p.code)).toEqual(['team', 'pro']);
    expect((await h.api('GET', `/plans/${floating.body.id}`)).body).toEqual(floating.body);
    expect((await h.api('GET', `/plans/${machine.body.id}`)).body).toEqual(machine.body);
  });
});

it('the engine itself (no HTTP) refuses lease fields on a machine plan and a seatMode patch', async () => {
  const engine = createLicenseEngine({
    store: createMemoryStore(), clock: systemClock, random: cryptoRandom,
    ids: createIdGenerator({ clock: systemClock, random: cryptoRandom }), secrets: createSecretBox(new Uint8Array(32).fill(1)),
  });
  const { account } = await engine.createAccount({ name: 'A', ownerEmail: 'a@example.test' });
  const product = await engine.createProduct(account.id, { name: 'P', keyPrefix: 'P' });
  await expect(engine.createPlan(account.id, product.id, { code: 'm', kind: 'subscription', leaseSeconds: 900 })).rejects.toMatchObject({ code: 'invalid_request' });
  const plan = await engine.createPlan(account.id, product.id, { code: 'f', kind: 'trial', seatMode: 'floating', maxBorrowDays: 3 });
  expect(plan).toMatchObject({ seatMode: 'floating', leaseSeconds: 900, maxBorrowDays: 3, maxBorrowedSeats: null });
  await expect(engine.updatePlan(account.id, plan.id, { seatMode: 'machine' } as never)).rejects.toMatchObject({ code: 'invalid_request' });
});
