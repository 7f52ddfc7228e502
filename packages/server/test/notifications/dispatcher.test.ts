import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createMemoryOutbox, createWebhookSender, generateWebhookSecret, parseNotifyAllowance, startDispatcher, webhookBody,
} from '../../src/notifications/index.js';
import type { DispatchLogEntry, Dispatcher, DispatcherOptions, MemoryOutbox, WebhookSender } from '../../src/notifications/index.js';
import { startReceiver } from './support/receiver.js';
import type { Receiver } from './support/receiver.js';
import { selfSignedCertificate } from './support/tls-certificate.js';

// The dispatcher over the outbox port's reference implementation, sending with the real sender to a
// real HTTPS receiver that verifies every delivery with the standardwebhooks package. The
// dispatcher's clock is fake (retries days apart); the sender signs with the real time, which the
// receiver's timestamp check needs.

let receiver: Receiver;
let sender: WebhookSender;
let outbox: MemoryOutbox;
let clock: number;
let log: DispatchLogEntry[];
const running: Dispatcher[] = [];
const secret = generateWebhookSecret();

beforeAll(async () => {
  const certificate = selfSignedCertificate(['127.0.0.1']);
  receiver = await startReceiver(certificate, { secrets: [secret] });
  const parsed = parseNotifyAllowance(['127.0.0.1']);
  if (!parsed.ok) throw new Error(parsed.message);
  sender = createWebhookSender({ allowance: parsed.allowance, trustedCertificates: certificate.cert });
});
afterAll(async () => {
  sender?.close();
  await receiver?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.maxInFlight = 0;
  receiver.handle = (_request, response) => void response.writeHead(204).end();
  outbox = createMemoryOutbox();
  outbox.addEndpoint({ id: 'wep_1', url: receiver.url('/hooks'), secrets: { current: secret, previous: null } });
  clock = Date.now();
  log = [];
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
});

function start(options: Partial<DispatcherOptions> = {}): Dispatcher {
  const dispatcher = startDispatcher({ outbox, sender, now: () => clock, pollIntervalMs: 20, log: (e) => log.push(e), ...options });
  running.push(dispatcher);
  return dispatcher;
}

function enqueue(id: string, endpointId = 'wep_1'): void {
  outbox.enqueue({ id, endpointId, body: webhookBody({ type: 'license.created', timestamp: new Date(clock), data: { id } }), dueAt: clock });
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const attemptsOf = (id: string) => outbox.delivery(id)?.attempts.length ?? 0;

describe('the dispatcher', () => {
  it('delivers every queued notification once, signed, with at most `concurrency` in flight', async () => {
    receiver.handle = (_request, response) => void setTimeout(() => response.writeHead(204).end(), 40);
    const ids = Array.from({ length: 12 }, (_, i) => `msg_${i}`);
    for (const id of ids) enqueue(id);
    start({ concurrency: 3 });
    await until(() => ids.every((id) => outbox.delivery(id)?.state === 'delivered'), 'all delivered');
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual([...ids].sort());
    expect(receiver.received.every((r) => r.verifiedWith.length === 1)).toBe(true);
    expect(receiver.maxInFlight).toBe(3);
    expect(outbox.delivery('msg_0')?.attempts).toEqual([
      { at: clock, ok: true, status: 204, latencyMs: expect.any(Number), responseBody: '', errorCode: null, errorMessage: null },
    ]);
    expect(log).toEqual([]);
  });

  it('retries a failure on the schedule with the same webhook-id, and logs the failure', async () => {
    let calls = 0;
    receiver.handle = (_request, response) => void response.writeHead(++calls === 1 ? 503 : 200).end(calls === 1 ? 'busy' : 'ok');
    enqueue('msg_r');
    const dispatcher = start({ random: () => 0.5 });
    await until(() => attemptsOf('msg_r') === 1, 'the first attempt');
    const first = outbox.delivery('msg_r');
    expect(first).toMatchObject({ state: 'pending', nextAttemptAt: clock + 5000, firstAttemptAt: clock });
    expect(log).toEqual([{
      msg: 'notification_failed', deliveryId: 'msg_r', endpointId: 'wep_1', attempt: 1, status: 503,
      error: 'http_status', reason: 'the endpoint answered 503', nextAttemptAt: clock + 5000,
    }]);
    await new Promise((resolve) => setTimeout(resolve, 100)); // several polls: not due yet
    expect(receiver.received).toHaveLength(1);
    clock += 5000;
    dispatcher.wake();
    await until(() => outbox.delivery('msg_r')?.state === 'delivered', 'the retry');
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(['msg_r', 'msg_r']);
    expect(receiver.received.map((r) => r.verifiedWith)).toEqual([[secret], [secret]]);
    expect(outbox.delivery('msg_r')?.attempts.map((a) => [a.status, a.responseBody])).toEqual([[503, 'busy'], [200, 'ok']]);
  });

  it('disables the endpoint on 410 Gone, tells the caller once, and sends it nothing more', async () => {
    receiver.handle = (_request, response) => void response.writeHead(410).end();
    const disabled: unknown[] = [];
    enqueue('msg_g1');
    start({ concurrency: 1, onEndpointDisabled: (event) => void disabled.push(event) });
    await until(() => outbox.endpoint('wep_1')?.enabled === false, 'the endpoint disabled');
    enqueue('msg_g2');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(disabled).toEqual([{ endpointId: 'wep_1', reason: 'gone' }]);
    expect(outbox.endpoint('wep_1')).toMatchObject({ enabled: false, disabledReason: 'gone' });
    expect(outbox.delivery('msg_g1')).toMatchObject({ state: 'failed' });
    expect(outbox.delivery('msg_g2')).toMatchObject({ state: 'pending', attempts: [] });
    expect(receiver.received).toHaveLength(1);
    expect(log).toContainEqual({ msg: 'endpoint_disabled', endpointId: 'wep_1', reason: 'gone' });
  });

  it('gives up after 3 days of failures, disables the endpoint and tells the caller', async () => {
    receiver.handle = (_request, response) => void response.writeHead(500).end();
    const disabled: unknown[] = [];
    const t0 = clock;
    enqueue('msg_x');
    const dispatcher = start({ onEndpointDisabled: (event) => void disabled.push(event) });
    for (let n = 1; outbox.delivery('msg_x')?.state === 'pending'; n++) {
      await until(() => attemptsOf('msg_x') === n, `attempt ${n}`);
      const next = outbox.delivery('msg_x')?.nextAttemptAt;
      if (next === null || next === undefined) break;
      clock = next;
      dispatcher.wake();
    }
    const delivery = outbox.delivery('msg_x');
    expect(delivery?.state).toBe('failed');
    const times = delivery!.attempts.map((a) => a.at - t0);
    expect(times).toHaveLength(13);
    expect(times.at(-1)).toBe(72 * 3600_000);
    // about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h apart (±10%), then 10 h
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    const expected = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6, 36e6, 36e6, 36e6, 36e6];
    gaps.slice(0, 11).forEach((gap, i) => expect(Math.abs(gap - expected[i]!)).toBeLessThanOrEqual(expected[i]! * 0.1 + 1));
    expect(disabled).toEqual([{ endpointId: 'wep_1', reason: 'failing' }]);
    expect(outbox.endpoint('wep_1')).toMatchObject({ enabled: false, disabledReason: 'failing' });
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(['msg_x']));
  });

  it('stops gracefully: claims nothing more, waits for the attempts in flight and records them', async () => {
    const held: (() => void)[] = [];
    receiver.handle = (_request, response) => void held.push(() => response.writeHead(204).end());
    enqueue('msg_s1');
    enqueue('msg_s2');
    const dispatcher = start({ concurrency: 4 });
    await until(() => held.length === 2, 'two requests in flight');
    let stopped = false;
    const stopping = dispatcher.stop().then(() => (stopped = true));
    enqueue('msg_s3');
    dispatcher.wake();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false);
    for (const release of held) release();
    await stopping;
    expect(outbox.delivery('msg_s1')?.state).toBe('delivered');
    expect(outbox.delivery('msg_s2')?.state).toBe('delivered');
    expect(outbox.delivery('msg_s3')).toMatchObject({ state: 'pending', attempts: [] });
    expect(receiver.received).toHaveLength(2);
  });

  it('records the attempts that finish while a record is being written together, in one call, and keeps sending meanwhile', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `msg_b${i}`);
    for (const id of ids) enqueue(id);
    const batches: string[][] = [];
    let release = () => {};
    const firstHeld = new Promise<void>((resolve) => (release = resolve));
    let sent = 0;
    const counting: WebhookSender = {
      send: async (request) => {
        const result = await sender.send(request);
        // once every send has finished, the first record (held below) may go on
        if (++sent === ids.length) setImmediate(release);
        return result;
      },
      close: () => {},
    };
    const held = {
      claimDue: outbox.claimDue.bind(outbox),
      recordAttempts: async (attempts: Parameters<MemoryOutbox['recordAttempts']>[0]) => {
        batches.push(attempts.map((a) => a.deliveryId));
        if (batches.length === 1) await firstHeld;
        return outbox.recordAttempts(attempts);
      },
    };
    start({ outbox: held, sender: counting, concurrency: 6 });
    await until(() => ids.every((id) => outbox.delivery(id)?.state === 'delivered'), 'all delivered');
    // the first finished attempt is recorded alone; the five that finished while it was held, in one call
    expect(batches.map((b) => b.length)).toEqual([1, 5]);
    expect(batches.flat().sort()).toEqual([...ids].sort());
    expect(receiver.received).toHaveLength(ids.length);
  });

  it('claims the notifications of several wake-ups within the wake delay together, in one claim', async () => {
    const claims: number[] = [];
    const counted = {
      claimDue: async (input: Parameters<MemoryOutbox['claimDue']>[0]) => {
        const claimed = await outbox.claimDue(input);
        claims.push(claimed.length);
        return claimed;
      },
      recordAttempts: outbox.recordAttempts.bind(outbox),
    };
    const dispatcher = start({ outbox: counted, pollIntervalMs: 60_000, wakeDelayMs: 500 });
    await until(() => claims.length === 1, 'the first claim');
    const ids = Array.from({ length: 5 }, (_, i) => `msg_w${i}`);
    for (const id of ids) {
      enqueue(id);
      dispatcher.wake(); // as the engine does after each committed unit
      await new Promise((resolve) => setImmediate(resolve)); // units commit one after another
    }
    await until(() => ids.every((id) => outbox.delivery(id)?.state === 'delivered'), 'all delivered');
    expect(claims).toEqual([0, 5]);
  });

  it('shares the outbox with another dispatcher without sending a notification twice', async () => {
    receiver.handle = (_request, response) => void setTimeout(() => response.writeHead(204).end(), 5);
    const ids = Array.from({ length: 40 }, (_, i) => `msg_${i}`);
    for (const id of ids) enqueue(id);
    start({ concurrency: 4 });
    start({ concurrency: 4 });
    await until(() => ids.every((id) => outbox.delivery(id)?.state === 'delivered'), 'all delivered');
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual([...ids].sort());
  });

  it('goes on after the outbox fails to claim, logging it', async () => {
    let failures = 1;
    const flaky = {
      claimDue: (input: Parameters<MemoryOutbox['claimDue']>[0]) => (failures-- > 0 ? Promise.reject(new Error('connection lost')) : outbox.claimDue(input)),
      recordAttempts: outbox.recordAttempts.bind(outbox),
    };
    enqueue('msg_f');
    start({ outbox: flaky });
    await until(() => outbox.delivery('msg_f')?.state === 'delivered', 'the delivery');
    expect(log).toEqual([{ msg: 'outbox_error', operation: 'claim', error: 'connection lost' }]);
  });
});
