import { decodeCertificate, encodeActivationRequest } from '@svc-licensing/cert-format';
import { verifyCertificate } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEveryStore, type Harness } from '../support/harness.js';

// Many calls on one key: the client limits are out of the way here (rate-limits.test.ts tests them).
const OPEN = { limits: { clientPerIp: 1_000_000, clientPerKeyAndIp: 1_000_000 } };

/** The payload of a certificate (decoded, not verified). */
function payloadOf(certificate: string) {
  const decoded = decodeCertificate(certificate);
  if (!decoded.ok) throw new Error('not a certificate');
  return decoded.payload;
}
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const sec = (ms: number) => Math.floor(ms / 1000);

/** A floating license (2 seats unless told) on a fresh harness; `call` makes client calls for machine n. */
async function floating(h: Harness, plan: Record<string, unknown> = {}, license: Record<string, unknown> = {}) {
  const made = await licensed(h, license, { code: 'team', seatMode: 'floating', maxActivations: 2, ...plan });
  const body = (n: number, extra: Record<string, unknown> = {}) => ({ product: made.product.id, key: made.license.key, fingerprint: fingerprint(made.product.id, n), ...extra });
  const call = (action: 'activate' | 'validate' | 'deactivate' | 'borrow', n: number, extra: Record<string, unknown> = {}) => h.client(action, body(n, extra));
  const detail = async () => (await h.api('GET', `/licenses/${made.license.id}`)).body;
  return { ...made, call, detail, fp: (n: number) => fingerprint(made.product.id, n) };
}

const expectRefused = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
};

describeEveryStore('floating seats: leases over HTTP', (setup) => {
  it('checks a seat out with a lease-long certificate, heartbeats extend it, a release frees the seat at once', async () => {
    const h = await createHarness(setup, OPEN);
    const f = await floating(h, { leaseSeconds: 600 });
    const start = h.clock.now();
    const first = await f.call('activate', 1, { name: 'Lab 1' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      certificate: expect.stringMatching(/^CRT1\./), activation: expect.stringMatching(/^act_/),
      lease: { leaseSeconds: 600, leaseExpiresAt: iso(start + 600_000), borrowedUntil: null }, revocationListSeq: 0,
    });
    const payload = payloadOf(first.body.certificate);
    expect(payload).toMatchObject({ issuedAt: sec(start), refreshAfter: sec(start) + 200, expiresAt: sec(start) + 600, seats: 1 });
    const keys = Object.fromEntries((await h.api('GET', `/products/${f.product.id}/keys`)).body.data.map((k: any) => [k.kid, k.publicKey]));
    const verify = (cert: string, at: number) => verifyCertificate(cert, { publicKeys: keys, product: f.product.id, fingerprint: f.fp(1), appMajor: 1, now: at });
    expect((await verify(first.body.certificate, sec(start) + 599)).outcome).toBe('valid');
    expect((await verify(first.body.certificate, sec(start) + 600)).outcome).not.toBe('valid');

    // Activating again is idempotent: the same activation, no second seat.
    const again = await f.call('activate', 1);
    expect(again.body.activation).toBe(first.body.activation);
    await f.call('activate', 2);
    expectRefused(await f.call('activate', 3), 409, 'activation_limit');

    h.clock.advance(200_000);
    const beat = await f.call('validate', 1);
    expect(beat.status).toBe(200);
    expect(Object.keys(beat.body).sort()).toEqual(['certificate', 'lease', 'revocationListSeq']);
    expect(beat.body.lease).toEqual({ leaseSeconds: 600, leaseExpiresAt: iso(start + 800_000), borrowedUntil: null });
    expect(payloadOf(beat.body.certificate)).toMatchObject({ refreshAfter: sec(start) + 400, expiresAt: sec(start) + 800 });

    const view = await f.detail();
    expect(view).toMatchObject({ seatMode: 'floating', liveLeases: 2, borrowedLeases: 0, activationCount: 2, activationLimit: 2 });
    const one = view.activations.find((a: any) => a.id === first.body.activation);
    expect(one).toMatchObject({ name: 'Lab 1', leaseExpiresAt: iso(start + 800_000), borrowedUntil: null, leaseState: 'live' });

    expect((await f.call('deactivate', 1)).body).toEqual({ deactivated: true });
    expect((await f.call('activate', 3)).status).toBe(200);
    expectRefused(await f.call('validate', 1), 404, 'not_activated');
    const events = (await h.api('GET', `/events?license=${f.license.id}`)).body.data.map((e: any) => [e.type, e.data.source ?? null]);
    expect(events.filter(([type]: [string]) => type.startsWith('activation.'))).toEqual([
      ['activation.created', null], ['activation.deleted', 'client'], ['activation.created', null], ['activation.created', null],
    ]);
  });

  it('a lease is live until the second before leaseExpiresAt + 5 s; then the seat is free and the lapsed machine is told activation_limit', async () => {
    const h = await createHarness(setup, OPEN);
    const f = await floating(h, { leaseSeconds: 120, maxActivations: 1 });
    const start = h.clock.now();
    expect((await f.call('activate', 1)).status).toBe(200);
    h.clock.set(iso(start + 125_000 - 1_000)); // leaseExpiresAt + 4 s: still live
    expectRefused(await f.call('activate', 2), 409, 'activation_limit');
    expect((await f.detail()).activations[0].leaseState).toBe('live');
    h.clock.set(iso(start + 125_000)); // leaseExpiresAt + 5 s: lapsed
    expect((await f.detail())).toMatchObject({ liveLeases: 0, activationCount: 1 });
    expect((await f.detail()).activations[0].leaseState).toBe('lapsed');
    const taken = await f.call('activate', 2);
    expect(taken.status).toBe(200);
    // The lapsed machine keeps its row: its heartbeat is refused for want of a seat, not as unknown.
    expectRefused(await f.call('validate', 1), 409, 'activation_limit');
    expect((await f.detail())).toMatchObject({ liveLeases: 1, activationCount: 2 });
    const expired = (await h.api('GET', `/events?license=${f.license.id}`)).body.data.filter((e: any) => e.type === 'lease.expired');
    expect(expired.map((e: any) => e.data)).toEqual([{ activation: expect.any(String), fingerprint: f.fp(1), leaseExpiresAt: iso(start + 120_000) }]);

    // Machine 2 stops; after its lease machine 1 resumes with a new lease on its old row.
    h.clock.set(iso(start + 125_000 + 125_000));
    const resumed = await f.call('validate', 1);
    expect(resumed.status).toBe(200);
    expect(resumed.body.lease.leaseExpiresAt).toBe(iso(start + 250_000 + 120_000));
    const after = await f.detail();
    expect(after.activations.map((a: any) => [a.fingerprint, a.leaseState])).toEqual([[f.fp(1), 'live'], [f.fp(2), 'lapsed']]);
    // Each lapse is recorded once, by the first call that sees it.
    await f.call('validate', 1);
    const types = (await h.api('GET', `/events?license=${f.license.id}`)).body.data.map((e: any) => e.type).filter((t: string) => t === 'lease.expired');
    expect(types).toHaveLength(2);
  });

  it('a heartbeat within the resolution of the last renewal answers the stored lease end (certificate too) and does not extend it; one at the resolution renews', async () => {
    const h = await createHarness(setup, OPEN);
    // leaseSeconds 120: the resolution is a sixth of it, 20 s (the SDK's heartbeat comes every 40 s).
    const f = await floating(h, { leaseSeconds: 120, maxActivations: 1 });
    const start = h.clock.now();
    expect((await f.call('activate', 1)).status).toBe(200);
    h.clock.set(iso(start + 19_000));
    const early = await f.call('validate', 1);
    expect(early.body.lease).toEqual({ leaseSeconds: 120, leaseExpiresAt: iso(start + 120_000), borrowedUntil: null });
    expect(payloadOf(early.body.certificate)).toMatchObject({ issuedAt: sec(start) + 19, refreshAfter: sec(start) + 19 + 40, expiresAt: sec(start) + 120 });
    expect((await f.detail()).activations[0]).toMatchObject({ leaseExpiresAt: iso(start + 120_000), lastSeenAt: iso(start) });
    // Not extended: the machine's seat is held to the second before the stored end + 5 s, then free.
    h.clock.set(iso(start + 124_000));
    expectRefused(await f.call('activate', 2), 409, 'activation_limit');
    h.clock.set(iso(start + 125_000));
    expect((await f.call('activate', 2)).status).toBe(200);

    const g = await floating(h, { code: 'g', leaseSeconds: 120, maxActivations: 1 });
    const from = h.clock.now();
    await g.call('activate', 1);
    h.clock.set(iso(from + 20_000));
    const renewed = await g.call('validate', 1);
    expect(renewed.body.lease.leaseExpiresAt).toBe(iso(from + 140_000));
    expect(payloadOf(renewed.body.certificate)).toMatchObject({ refreshAfter: sec(from) + 60, expiresAt: sec(from) + 140 });
    // A changed app version is written at once, and the lease renewed with it.
    h.clock.set(iso(from + 21_000));
    const updated = await g.call('validate', 1, { appVersion: '2.0.0' });
    expect(updated.body.lease.leaseExpiresAt).toBe(iso(from + 141_000));
    expect((await g.detail()).activations[0]).toMatchObject({ appVersion: '2.0.0', lastSeenAt: iso(from + 21_000), leaseExpiresAt: iso(from + 141_000) });
  });

  it('removes rows lapsed for 30 days at the next check-out (activation.deleted, source lapsed); their machines are then unknown', async () => {
    const h = await createHarness(setup, OPEN);
    const f = await floating(h, { leaseSeconds: 120 }, { paidUntil: iso(Date.UTC(2027, 0, 1)) });
    const start = h.clock.now();
    await f.call('activate', 1);
    await f.call('activate', 2);
    h.clock.set(iso(start + 120_000 + 30 * 86_400_000 - 1_000));
    await f.call('activate', 3);
    expect((await f.detail()).activationCount).toBe(3);
    h.clock.set(iso(start + 120_000 + 30 * 86_400_000));
    await f.call('validate', 3); // a heartbeat: no check-out, nothing removed
    expect((await f.detail()).activationCount).toBe(3);
    await f.call('activate', 4);
    const view = await f.detail();
    expect(view.activations.map((a: any) => a.fingerprint)).toEqual([f.fp(3), f.fp(4)]);
    expect(view.activationCount).toBe(2);
    const deleted = (await h.api('GET', `/events?license=${f.license.id}`)).body.data.filter((e: any) => e.type === 'activation.deleted');
    expect(deleted.map((e: any) => [e.data.fingerprint, e.data.source]).sort()).toEqual([[f.fp(1), 'lapsed'], [f.fp(2), 'lapsed']].sort());
    expectRefused(await f.call('validate', 1), 404, 'not_activated');
  });

  it('borrows for days: a certificate until the borrow end, heartbeats never shorten it, deactivate returns it early', async () => {
    const h = await createHarness(setup, OPEN);
    const f = await floating(h, { leaseSeconds: 900, maxBorrowDays: 14, maxActivations: 2 });
    const start = h.clock.now();
    const borrowed = await f.call('borrow', 1, { days: 7 });
    expect(borrowed.status, JSON.stringify(borrowed.body)).toBe(200);
    const end = start + 7 * 86_400_000;
    expect(borrowed.body).toEqual({
      certificate: expect.stringMatching(/^CRT1\./), activation: expect.stringMatching(/^act_/),
      lease: { leaseSeconds: 900, leaseExpiresAt: iso(end), borrowedUntil: iso(end) },
    });
    expect(payloadOf(borrowed.body.certificate)).toMatchObject({ refreshAfter: sec(start) + 86_400, expiresAt: sec(end) });
    // A shorter borrow and a heartbeat keep the longer borrow.
    h.clock.advance(3_600_000);
    expect((await f.call('borrow', 1, { days: 1 })).body.lease.borrowedUntil).toBe(iso(end));
    const beat = await f.call('validate', 1);
    expect(beat.body.lease).toEqual({ leaseSeconds: 900, leaseExpiresAt: iso(end), borrowedUntil: iso(end) });
    expect(payloadOf(beat.body.certificate).expiresAt).toBe(sec(end));
    expect(await f.detail()).toMatchObject({ liveLeases: 1, borrowedLeases: 1 });
    expect((await f.detail()).activations[0]).toMatchObject({ leaseState: 'borrowed', borrowedUntil: iso(end), leaseExpiresAt: iso(end) });
    // Days later, offline all along, the seat is still held.
    h.clock.set(iso(end - 1_000));
    await f.call('activate', 2);
    expectRefused(await f.call('activate', 3), 409, 'activation_limit');
    // Returned early: the seat is free at once.
    expect((await f.call('deactivate', 1)).status).toBe(200);
    expect((await f.call('activate', 3)).status).toBe(200);
    const events = (await h.api('GET', `/events?license=${f.license.id}`)).body.data;
    const lease = events.filter((e: any) => e.type.startsWith('lease.')).map((e: any) => [e.type, e.data]).reverse();
    expect(lease).toEqual([
      ['lease.borrowed', { activation: borrowed.body.activation, fingerprint: f.fp(1), borrowedUntil: iso(end), days: 7 }],
      ['lease.borrowed', { activation: borrowed.body.activation, fingerprint: f.fp(1), borrowedUntil: iso(end), days: 1 }],
      ['lease.returned', { activation: borrowed.body.activation, fingerprint: f.fp(1), borrowedUntil: iso(end), source: 'client' }],
    ]);
  });

  it('a borrow ends like a lease: 5 s after its end without a call the seat is free', async () => {
    const h = await createHarness(setup, OPEN);
    const f = await floating(h, { maxBorrowDays: 3, maxActivations: 1 });
    const start = h.clock.now();
    await f.call('borrow', 1, { days: 3 });
    h.clock.set(iso(start + 3 * 86_400_000 + 4_000));
    expectRefused(await f.call('activate', 2), 409, 'activation_limit');
    h.clock.set(iso(start + 3 * 86_400_000 + 5_000));
    expect((await f.call('activate', 2)).status).toBe(200);
  });

  it('caps borrows at maxBorrowedSeats (the machine itself not counted) and refuses a borrow with no free seat, changing nothing', async () => {
    const h = await createHarness(setup, OPEN);
    const f = await floating(h, { maxBorrowDays: 30, maxBorrowedSeats: 1, maxActivations: 2 });
    await f.call('borrow', 1, { days: 2 });
    expect((await f.call('borrow', 1, { days: 5 })).status).toBe(200); // its own borrow does not count against itself
    const refused = await f.call('borrow', 2, { days: 1 });
    expectRefused(refused, 409, 'borrow_limit');
    // Not even the check-out happened.
    expect((await f.detail())).toMatchObject({ liveLeases: 1, activationCount: 1 });
    await f.call('activate', 2);
    expectRefused(await f.call('borrow', 3, { days: 1 }), 409, 'activation_limit');
    expect((await f.detail()).activationCount).toBe(2);
  });

  it('refuses bad borrows with invalid_request: days outside 1..maxBorrowDays, a machine plan, wrong types; and the other client refusals', async () => {
    const h = await createHarness(setup, OPEN);
    const f = await floating(h, { maxBorrowDays: 3 });
    for (const days of [0, 4, -1, 1.5, '2', null, undefined, 366]) {
      const res = await f.call('borrow', 1, days === undefined ? {} : { days });
      expectRefused(res, 400, 'invalid_request');
      expect(res.body.error.message, String(days)).toContain('days');
    }
    expectRefused(await h.client('borrow', { product: f.product.id, key: f.license.key, fingerprint: 'abc', days: 1 }), 400, 'invalid_request');
    expectRefused(await h.client('borrow', { product: 'prd_nope', key: f.license.key, fingerprint: f.fp(1), days: 1 }), 404, 'unknown_product');
    expect((await f.detail()).activationCount).toBe(0);

    const none = await floating(h, { code: 'noborrow' });
    expectRefused(await none.call('borrow', 1, { days: 1 }), 400, 'invalid_request');
    const machine = await licensed(h, {}, { code: 'machine' });
    const onMachine = await h.client('borrow', { product: machine.product.id, key: machine.license.key, fingerprint: fingerprint(machine.product.id, 1), days: 1 });
    expectRefused(onMachine, 400, 'invalid_request');
    expect(onMachine.body.error.message).toContain('floating');
    await h.api('POST', `/licenses/${f.license.id}/suspend`);
    expectRefused(await f.call('borrow', 1, { days: 1 }), 403, 'license_suspended');
  });

  it('answers a machine plan as before (no lease; the revocation list\'s seq as on any plan), and refuses an offline activation on a floating plan', async () => {
    const h = await createHarness(setup, OPEN);
    const machine = await licensed(h, {}, { code: 'machine' });
    const body = { product: machine.product.id, key: machine.license.key, fingerprint: fingerprint(machine.product.id, 1) };
    expect(Object.keys((await h.client('activate', body)).body).sort()).toEqual(['activation', 'certificate', 'revocationListSeq']);
    expect(Object.keys((await h.client('validate', body)).body).sort()).toEqual(['certificate', 'revocationListSeq']);
    const view = (await h.api('GET', `/licenses/${machine.license.id}`)).body;
    expect(view).toMatchObject({ seatMode: 'machine', liveLeases: null, borrowedLeases: null });
    expect(view.activations[0]).toMatchObject({ leaseExpiresAt: null, borrowedUntil: null, leaseState: null });

    const f = await floating(h, { code: 'float' });
    const request = encodeActivationRequest({ v: 1, product: f.product.id, fingerprint: f.fp(1), appVersion: '1.0.0', createdAt: sec(h.clock.now()) });
    const offline = await h.api('POST', '/activations/offline', { request, license: f.license.id });
    expectRefused(offline, 400, 'invalid_request');
    expect((await f.detail()).activationCount).toBe(0);
  });

  it('the vendor freeing a borrowed machine returns the borrow (lease.returned, source vendor) and frees the seat', async () => {
    const h = await createHarness(setup, OPEN);
    const f = await floating(h, { maxBorrowDays: 5, maxActivations: 1 });
    const borrowed = await f.call('borrow', 1, { days: 5 });
    const freed = await h.api('DELETE', `/activations/${borrowed.body.activation}`);
    expect(freed.status).toBe(200);
    expect(freed.body).toMatchObject({ liveLeases: 0, borrowedLeases: 0, activationCount: 0 });
    expect((await f.call('activate', 2)).status).toBe(200);
    const returned = (await h.api('GET', `/events?license=${f.license.id}`)).body.data.find((e: any) => e.type === 'lease.returned');
    expect(returned.data).toMatchObject({ source: 'vendor', fingerprint: f.fp(1) });
  });
});
