import { describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../src/notifications/index.js';
import type { AttemptRecord, AttemptToRecord, EndpointDisabledReason, OutboxPort, RecordedAttempt, SigningSecrets } from '../../src/notifications/index.js';

/**
 * The outbox port's conformance suite: the behaviour the dispatcher relies on, which every
 * implementation (the in-memory reference, and the store-backed outboxes of the embedded and
 * MySQL stores) must pass. An implementation gives a harness: the port, plus how to add endpoints
 * and queue deliveries and read them back in its own terms.
 */
export interface OutboxHarness {
  port: OutboxPort;
  addEndpoint(endpoint: { id: string; url: string; secrets: SigningSecrets }): Promise<void>;
  enqueue(delivery: { id: string; endpointId: string; body: string; dueAt: number }): Promise<void>;
  delivery(id: string): Promise<{ state: 'pending' | 'delivered' | 'failed'; nextAttemptAt: number | null; firstAttemptAt: number | null; attempts: AttemptRecord[] } | undefined>;
  endpoint(id: string): Promise<{ enabled: boolean; disabledReason: EndpointDisabledReason | null } | undefined>;
  close?(): Promise<void>;
}

const t0 = Date.UTC(2025, 5, 1, 12);
const LEASE = 60_000;

function attempt(at: number, ok: boolean, status: number | null = ok ? 204 : 500): AttemptRecord {
  return {
    at, ok, status, latencyMs: 12, responseBody: ok ? '' : 'down',
    errorCode: ok ? null : status === 410 ? 'gone' : 'http_status', errorMessage: ok ? null : `the endpoint answered ${status}`,
  };
}

/** Records one attempt alone (a batch of one). */
async function recordOne(h: OutboxHarness, input: AttemptToRecord): Promise<RecordedAttempt> {
  const [recorded] = await h.port.recordAttempts([input]);
  return recorded!;
}

export function testOutboxPort(name: string, open: () => Promise<OutboxHarness>): void {
  async function withOutbox(body: (h: OutboxHarness) => Promise<void>): Promise<void> {
    const harness = await open();
    try {
      await body(harness);
    } finally {
      await harness.close?.();
    }
  }
  const secrets = { current: generateWebhookSecret(), previous: null };

  describe(`outbox port conformance: ${name}`, () => {
    it('claims the due deliveries of enabled endpoints, oldest due first, up to the limit, with what an attempt needs', () =>
      withOutbox(async (h) => {
        const old = generateWebhookSecret();
        await h.addEndpoint({ id: 'wep_a', url: 'https://a.example.com/h', secrets: { current: secrets.current, previous: { secret: old, expiresAt: t0 + 1000 } } });
        await h.enqueue({ id: 'msg_late', endpointId: 'wep_a', body: '{"n":3}', dueAt: t0 + 5000 });
        await h.enqueue({ id: 'msg_2', endpointId: 'wep_a', body: '{"n":2}', dueAt: t0 - 10 });
        await h.enqueue({ id: 'msg_1', endpointId: 'wep_a', body: '{"n":1}', dueAt: t0 - 20 });
        await h.enqueue({ id: 'msg_0', endpointId: 'wep_a', body: '{"n":0}', dueAt: t0 - 5 });
        const first = await h.port.claimDue({ now: t0, limit: 2, leaseMs: LEASE });
        expect(first.map((d) => d.id)).toEqual(['msg_1', 'msg_2']);
        expect(first[0]).toMatchObject({
          endpointId: 'wep_a', url: 'https://a.example.com/h', body: '{"n":1}', attempts: 0, firstAttemptAt: null,
          signingSecrets: [secrets.current, old], claimToken: expect.any(String),
        });
        expect((await h.port.claimDue({ now: t0, limit: 10, leaseMs: LEASE })).map((d) => d.id)).toEqual(['msg_0']);
        expect(await h.port.claimDue({ now: t0 + 4999, limit: 10, leaseMs: LEASE })).toEqual([]);
        // after the rotation overlap, the previous secret no longer signs
        const late = await h.port.claimDue({ now: t0 + 5000, limit: 10, leaseMs: LEASE });
        expect(late.map((d) => [d.id, d.signingSecrets])).toEqual([['msg_late', [secrets.current]]]);
      }));

    it('gives a claimed delivery to no other claim until its lease expires; the stale claim then records nothing', () =>
      withOutbox(async (h) => {
        await h.addEndpoint({ id: 'wep_a', url: 'https://a.example.com/h', secrets });
        await h.enqueue({ id: 'msg_1', endpointId: 'wep_a', body: '{}', dueAt: t0 });
        const [first] = await h.port.claimDue({ now: t0, limit: 5, leaseMs: LEASE });
        expect(await h.port.claimDue({ now: t0 + LEASE - 1, limit: 5, leaseMs: LEASE })).toEqual([]);
        const [second] = await h.port.claimDue({ now: t0 + LEASE, limit: 5, leaseMs: LEASE });
        expect(second?.id).toBe('msg_1');
        expect(second?.claimToken).not.toBe(first?.claimToken);
        const stale = await recordOne(h, { deliveryId: 'msg_1', claimToken: first!.claimToken, attempt: attempt(t0, true), outcome: { kind: 'delivered' } });
        expect(stale).toEqual({ recorded: false, endpointDisabled: null });
        expect(await h.delivery('msg_1')).toMatchObject({ state: 'pending', attempts: [] });
        const fresh = await recordOne(h, { deliveryId: 'msg_1', claimToken: second!.claimToken, attempt: attempt(t0 + LEASE, true), outcome: { kind: 'delivered' } });
        expect(fresh).toEqual({ recorded: true, endpointDisabled: null });
        expect(await h.delivery('msg_1')).toMatchObject({ state: 'delivered', nextAttemptAt: null, attempts: [attempt(t0 + LEASE, true)] });
        expect(await h.port.claimDue({ now: t0 + 10 * LEASE, limit: 5, leaseMs: LEASE })).toEqual([]);
      }));

    it('accepts the record of an expired claim that nobody took over', () =>
      withOutbox(async (h) => {
        await h.addEndpoint({ id: 'wep_a', url: 'https://a.example.com/h', secrets });
        await h.enqueue({ id: 'msg_1', endpointId: 'wep_a', body: '{}', dueAt: t0 });
        const [claim] = await h.port.claimDue({ now: t0, limit: 1, leaseMs: 1000 });
        const recorded = await recordOne(h, { deliveryId: 'msg_1', claimToken: claim!.claimToken, attempt: attempt(t0 + 5000, true), outcome: { kind: 'delivered' } });
        expect(recorded.recorded).toBe(true);
      }));

    it('keeps a retried delivery until it is due again, counting attempts from the first', () =>
      withOutbox(async (h) => {
        await h.addEndpoint({ id: 'wep_a', url: 'https://a.example.com/h', secrets });
        await h.enqueue({ id: 'msg_1', endpointId: 'wep_a', body: '{}', dueAt: t0 });
        const [a] = await h.port.claimDue({ now: t0, limit: 1, leaseMs: LEASE });
        await recordOne(h, { deliveryId: 'msg_1', claimToken: a!.claimToken, attempt: attempt(t0, false), outcome: { kind: 'retry', at: t0 + 5000 } });
        expect(await h.delivery('msg_1')).toMatchObject({ state: 'pending', nextAttemptAt: t0 + 5000, firstAttemptAt: t0 });
        // released: not held by the expired-in-a-minute lease
        expect(await h.port.claimDue({ now: t0 + 4999, limit: 1, leaseMs: LEASE })).toEqual([]);
        const [b] = await h.port.claimDue({ now: t0 + 5000, limit: 1, leaseMs: LEASE });
        expect(b).toMatchObject({ id: 'msg_1', attempts: 1, firstAttemptAt: t0 });
        await recordOne(h, { deliveryId: 'msg_1', claimToken: b!.claimToken, attempt: attempt(t0 + 5000, false, 503), outcome: { kind: 'retry', at: t0 + 310_000 } });
        const [c] = await h.port.claimDue({ now: t0 + 310_000, limit: 1, leaseMs: LEASE });
        expect(c).toMatchObject({ attempts: 2, firstAttemptAt: t0 });
        expect((await h.delivery('msg_1'))?.attempts.map((x) => x.status)).toEqual([500, 503]);
      }));

    it('disables the endpoint on 410 Gone and claims none of its deliveries, while other endpoints go on', () =>
      withOutbox(async (h) => {
        await h.addEndpoint({ id: 'wep_a', url: 'https://a.example.com/h', secrets });
        await h.addEndpoint({ id: 'wep_b', url: 'https://b.example.com/h', secrets });
        await h.enqueue({ id: 'msg_a1', endpointId: 'wep_a', body: '{}', dueAt: t0 });
        await h.enqueue({ id: 'msg_a2', endpointId: 'wep_a', body: '{}', dueAt: t0 + 1 });
        await h.enqueue({ id: 'msg_b1', endpointId: 'wep_b', body: '{}', dueAt: t0 + 2 });
        const [a1] = await h.port.claimDue({ now: t0, limit: 1, leaseMs: LEASE });
        const recorded = await recordOne(h, { deliveryId: 'msg_a1', claimToken: a1!.claimToken, attempt: attempt(t0, false, 410), outcome: { kind: 'gone' } });
        expect(recorded).toEqual({ recorded: true, endpointDisabled: 'gone' });
        expect(await h.endpoint('wep_a')).toEqual({ enabled: false, disabledReason: 'gone' });
        expect(await h.delivery('msg_a1')).toMatchObject({ state: 'failed', nextAttemptAt: null });
        expect((await h.port.claimDue({ now: t0 + 10, limit: 10, leaseMs: LEASE })).map((d) => d.id)).toEqual(['msg_b1']);
      }));

    it('after 3 days gives the delivery up, and disables the endpoint only when it had no success since the first attempt', () =>
      withOutbox(async (h) => {
        await h.addEndpoint({ id: 'wep_a', url: 'https://a.example.com/h', secrets });
        await h.addEndpoint({ id: 'wep_b', url: 'https://b.example.com/h', secrets });
        await h.enqueue({ id: 'msg_a', endpointId: 'wep_a', body: '{}', dueAt: t0 });
        await h.enqueue({ id: 'msg_b', endpointId: 'wep_b', body: '{}', dueAt: t0 });
        await h.enqueue({ id: 'msg_b_ok', endpointId: 'wep_b', body: '{}', dueAt: t0 + 100 });
        const claims = await h.port.claimDue({ now: t0, limit: 2, leaseMs: LEASE });
        for (const c of claims) await recordOne(h, { deliveryId: c.id, claimToken: c.claimToken, attempt: attempt(t0, false), outcome: { kind: 'retry', at: t0 + 72 * 3600_000 } });
        const [ok] = await h.port.claimDue({ now: t0 + 100, limit: 1, leaseMs: LEASE });
        await recordOne(h, { deliveryId: ok!.id, claimToken: ok!.claimToken, attempt: attempt(t0 + 100, true), outcome: { kind: 'delivered' } });

        const end = t0 + 72 * 3600_000;
        const last = await h.port.claimDue({ now: end, limit: 5, leaseMs: LEASE });
        expect(last.map((d) => d.id).sort()).toEqual(['msg_a', 'msg_b']);
        const results = [];
        for (const c of last) {
          results.push(await recordOne(h, { deliveryId: c.id, claimToken: c.claimToken, attempt: attempt(end, false), outcome: { kind: 'exhausted' } }));
        }
        expect(results.map((r) => r.endpointDisabled).sort()).toEqual(['failing', null]);
        expect(await h.endpoint('wep_a')).toEqual({ enabled: false, disabledReason: 'failing' });
        expect(await h.endpoint('wep_b')).toEqual({ enabled: true, disabledReason: null });
        expect(await h.delivery('msg_b')).toMatchObject({ state: 'failed', nextAttemptAt: null, firstAttemptAt: t0 });
      }));

    it('records a batch of attempts in one call, each as if alone: a stale claim in it records nothing, the others do', () =>
      withOutbox(async (h) => {
        await h.addEndpoint({ id: 'wep_a', url: 'https://a.example.com/h', secrets });
        await h.addEndpoint({ id: 'wep_b', url: 'https://b.example.com/h', secrets });
        for (const [id, endpointId, dueAt] of [['msg_1', 'wep_a', t0], ['msg_2', 'wep_a', t0 + 1], ['msg_3', 'wep_b', t0 + 2], ['msg_4', 'wep_a', t0 + 3]] as const) {
          await h.enqueue({ id, endpointId, body: '{}', dueAt });
        }
        const first = [
          ...(await h.port.claimDue({ now: t0 + 10, limit: 3, leaseMs: LEASE })),
          ...(await h.port.claimDue({ now: t0 + 10, limit: 1, leaseMs: 1000 })),
        ];
        expect(first.map((c) => c.id)).toEqual(['msg_1', 'msg_2', 'msg_3', 'msg_4']);
        const token = (id: string, claims = first) => claims.find((c) => c.id === id)!.claimToken;
        // msg_4's claim expires and is taken over before its attempt is recorded
        const [retaken] = await h.port.claimDue({ now: t0 + 2000, limit: 1, leaseMs: LEASE });
        expect(retaken?.id).toBe('msg_4');
        const results = await h.port.recordAttempts([
          { deliveryId: 'msg_1', claimToken: token('msg_1'), attempt: attempt(t0 + 10, true), outcome: { kind: 'delivered' } },
          { deliveryId: 'msg_4', claimToken: token('msg_4'), attempt: attempt(t0 + 10, true), outcome: { kind: 'delivered' } },
          { deliveryId: 'msg_2', claimToken: token('msg_2'), attempt: attempt(t0 + 10, false), outcome: { kind: 'retry', at: t0 + 5000 } },
          { deliveryId: 'msg_3', claimToken: token('msg_3'), attempt: attempt(t0 + 10, false, 410), outcome: { kind: 'gone' } },
          // the same attempt twice in one batch: its claim is spent by the first
          { deliveryId: 'msg_1', claimToken: token('msg_1'), attempt: attempt(t0 + 11, true), outcome: { kind: 'delivered' } },
        ]);
        expect(results).toEqual([
          { recorded: true, endpointDisabled: null },
          { recorded: false, endpointDisabled: null },
          { recorded: true, endpointDisabled: null },
          { recorded: true, endpointDisabled: 'gone' },
          { recorded: false, endpointDisabled: null },
        ]);
        expect(await h.delivery('msg_1')).toMatchObject({ state: 'delivered', attempts: [attempt(t0 + 10, true)] });
        expect(await h.delivery('msg_2')).toMatchObject({ state: 'pending', nextAttemptAt: t0 + 5000, firstAttemptAt: t0 + 10 });
        expect(await h.delivery('msg_3')).toMatchObject({ state: 'failed', nextAttemptAt: null });
        expect(await h.delivery('msg_4')).toMatchObject({ state: 'pending', attempts: [] });
        expect(await h.endpoint('wep_b')).toEqual({ enabled: false, disabledReason: 'gone' });
        expect(await h.endpoint('wep_a')).toEqual({ enabled: true, disabledReason: null });
        // the retaken claim still records
        expect(await recordOne(h, { deliveryId: 'msg_4', claimToken: retaken!.claimToken, attempt: attempt(t0 + 2000, true), outcome: { kind: 'delivered' } }))
          .toEqual({ recorded: true, endpointDisabled: null });
        expect(await h.port.recordAttempts([])).toEqual([]);
      }));

    it('never gives one delivery to two concurrent claims', () =>
      withOutbox(async (h) => {
        await h.addEndpoint({ id: 'wep_a', url: 'https://a.example.com/h', secrets });
        for (let i = 0; i < 60; i++) await h.enqueue({ id: `msg_${String(i).padStart(2, '0')}`, endpointId: 'wep_a', body: '{}', dueAt: t0 + i });
        const batches = await Promise.all(Array.from({ length: 6 }, () => h.port.claimDue({ now: t0 + 100, limit: 15, leaseMs: LEASE })));
        const ids = batches.flat().map((d) => d.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toHaveLength(60);
      }));
  });
}
