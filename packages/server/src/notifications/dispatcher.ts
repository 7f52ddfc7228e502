import type { AttemptResult } from './attempt-result.js';
import type { AttemptToRecord, ClaimedDelivery, DeliveryOutcome, EndpointDisabledReason, OutboxPort } from './outbox-port.js';
import { nextAttemptAt } from './retry-schedule.js';
import type { AttemptRequest } from './webhook-sender.js';

/** A line of the dispatcher's log: failures and endpoints it disabled (never a secret or a body). */
export type DispatchLogEntry =
  | { msg: 'notification_failed'; deliveryId: string; endpointId: string; attempt: number; status: number | null; error: string; reason: string; nextAttemptAt: number | null }
  | { msg: 'endpoint_disabled'; endpointId: string; reason: EndpointDisabledReason }
  | { msg: 'outbox_error'; operation: 'claim' | 'send' | 'record'; error: string };

/** Options of {@link startDispatcher}. */
export interface DispatcherOptions {
  outbox: OutboxPort;
  /** Sends one attempt (see `createWebhookSender`); must not reject for network outcomes. */
  sender: { send(request: AttemptRequest): Promise<AttemptResult> };
  /**
   * At most this many attempts in flight (default 16). As many more may be claimed ahead, ready
   * to start when a slot frees; finished attempts wait to be recorded in batches; claimed
   * deliveries not yet recorded are at most three times this many.
   */
  concurrency?: number;
  /** How often the outbox is asked when nothing woke the dispatcher (default 1000 ms). */
  pollIntervalMs?: number;
  /**
   * How long `wake()` waits before claiming (default 20 ms), so that the notifications of units
   * committed meanwhile are claimed, sent and recorded together instead of a claim per unit; 0
   * claims at once.
   */
  wakeDelayMs?: number;
  /** How long a claim holds a delivery (default 60 s: well over an attempt's 10 s limit). */
  leaseMs?: number;
  /** The clock (epoch ms; default `Date.now`). */
  now?: () => number;
  /** Randomness of the retry jitter (default `Math.random`). */
  random?: () => number;
  log?: (entry: DispatchLogEntry) => void;
  /** Called after an attempt or a claim disabled an endpoint, to tell its owner (by e-mail). */
  onEndpointDisabled?: (event: { endpointId: string; reason: EndpointDisabledReason }) => Promise<void> | void;
}

/** A running dispatcher. */
export interface Dispatcher {
  /** Asks the outbox soon (after `wakeDelayMs`) instead of at the next poll (after queueing a notification). */
  wake(): void;
  /**
   * Stops claiming, sends what it has claimed already, waits for those attempts and their records;
   * resolves when idle.
   */
  stop(): Promise<void>;
}

type Settings = Required<Omit<DispatcherOptions, 'log' | 'onEndpointDisabled'>> & {
  log: DispatcherOptions['log'];
  onEndpointDisabled: DispatcherOptions['onEndpointDisabled'];
};

/** At most this many attempts in one recording unit of work. */
const MAX_RECORD_BATCH = 64;

class DispatchLoop implements Dispatcher {
  readonly #options: Settings;
  /** Sends in flight, and the owner e-mails of endpoints disabled: `stop` waits for them. */
  readonly #inFlight = new Set<Promise<void>>();
  #sending = 0;
  /** Deliveries claimed and not recorded yet (being sent, or waiting in `#finished`). */
  #unrecorded = 0;
  /** Deliveries claimed and not started yet (a slot frees: the next one starts at once). */
  readonly #ready: ClaimedDelivery[] = [];
  /** Finished attempts waiting for the next recording unit. */
  readonly #finished: { delivery: ClaimedDelivery; record: AttemptToRecord }[] = [];
  /** The recording loop while it runs: one unit of work at a time, each taking every attempt finished meanwhile. */
  #recording: Promise<void> | null = null;
  #stopping = false;
  /** The last claim filled every free slot: more may be due, so a freed slot claims again at once. */
  #backlog = false;
  #woken = false;
  #wakeUp: (() => void) | null = null;
  readonly #loop: Promise<void>;

  constructor(options: DispatcherOptions) {
    const concurrency = options.concurrency ?? 16;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`expected a concurrency of at least 1, got ${concurrency}`);
    this.#options = {
      outbox: options.outbox,
      sender: options.sender,
      concurrency,
      pollIntervalMs: options.pollIntervalMs ?? 1000,
      wakeDelayMs: options.wakeDelayMs ?? 20,
      leaseMs: options.leaseMs ?? 60_000,
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
      log: options.log,
      onEndpointDisabled: options.onEndpointDisabled,
    };
    this.#loop = this.#run();
  }

  /** A pending delayed wake-up (see `wakeDelayMs`): later wakes join it. */
  #delayed: ReturnType<typeof setTimeout> | null = null;

  wake(): void {
    const delay = this.#options.wakeDelayMs;
    if (delay <= 0 || this.#stopping) return this.#nudge();
    if (this.#delayed !== null) return;
    this.#delayed = setTimeout(() => {
      this.#delayed = null;
      this.#nudge();
    }, delay);
  }

  /** Wakes the loop now (a freed slot with a backlog, a stop, a delayed wake-up). */
  #nudge(): void {
    this.#woken = true;
    this.#wakeUp?.();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#delayed !== null) clearTimeout(this.#delayed);
    this.#delayed = null;
    this.#nudge();
    await this.#loop;
    while (this.#inFlight.size > 0 || this.#recording !== null) {
      await Promise.all(this.#inFlight);
      await this.#recording;
    }
  }

  async #run(): Promise<void> {
    const { outbox, concurrency, leaseMs, now } = this.#options;
    while (!this.#stopping) {
      this.#woken = false;
      // Room for `concurrency` in flight and as many claimed ahead (ready to start the moment a slot
      // frees, so a claim's commit never leaves slots idle), and at most 3x `concurrency` claimed and
      // not yet recorded.
      const free = Math.min(2 * concurrency - this.#sending - this.#ready.length, 3 * concurrency - this.#unrecorded);
      // With a backlog, claim once a whole `concurrency` of room is free: a claim is a transaction
      // (and a commit to wait for), so claims of a few over thousands due made claiming cost as
      // much as sending, and their latency set the rate.
      if (free >= (this.#backlog ? concurrency : 1)) {
        let claimed: ClaimedDelivery[] = [];
        try {
          claimed = await outbox.claimDue({ now: now(), limit: free, leaseMs, onEndpointDisabled: (event) => this.#endpointDisabled(event) });
        } catch (error) {
          this.#options.log?.({ msg: 'outbox_error', operation: 'claim', error: String((error as Error)?.message ?? error) });
        }
        this.#backlog = claimed.length === free;
        this.#unrecorded += claimed.length;
        this.#ready.push(...claimed);
        this.#startReady();
      }
      if (!this.#stopping) await this.#idle();
    }
  }

  /** Starts claimed deliveries while a send slot is free (also after a stop: they are claimed, so they are sent). */
  #startReady(): void {
    while (this.#sending < this.#options.concurrency && this.#ready.length > 0) {
      this.#sending++;
      this.#track(this.#deliver(this.#ready.shift()!));
    }
  }

  #track(attempt: Promise<void>): void {
    const tracked = attempt.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  /** Waits for a poll interval, a wake-up (a queued notification, a freed slot with a backlog) or a stop. */
  #idle(): Promise<void> {
    if (this.#woken) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, this.#options.pollIntervalMs);
      this.#wakeUp = done;
    });
  }

  /** Sends one attempt and hands its result to the recording loop (never rejects). */
  async #deliver(delivery: ClaimedDelivery): Promise<void> {
    const { sender, now, random, log } = this.#options;
    const at = now();
    let record: AttemptToRecord;
    try {
      const result = await sender.send({ url: delivery.url, id: delivery.id, body: delivery.body, secrets: delivery.signingSecrets });
      const ended = now();
      const attempts = delivery.attempts + 1;
      let outcome: DeliveryOutcome;
      if (result.ok) outcome = { kind: 'delivered' };
      else if (result.error.code === 'gone') outcome = { kind: 'gone' };
      else {
        const next = nextAttemptAt({ attempts, firstAttemptAt: delivery.firstAttemptAt ?? at, now: ended }, random);
        outcome = next === null ? { kind: 'exhausted' } : { kind: 'retry', at: next };
      }
      if (!result.ok) {
        log?.({
          msg: 'notification_failed', deliveryId: delivery.id, endpointId: delivery.endpointId, attempt: attempts, status: result.status,
          error: result.error.code, reason: result.error.message, nextAttemptAt: outcome.kind === 'retry' ? outcome.at : null,
        });
      }
      const attempt = {
        at, ok: result.ok, status: result.status, latencyMs: result.latencyMs, responseBody: result.responseBody,
        errorCode: result.ok ? null : result.error.code, errorMessage: result.ok ? null : result.error.message,
      };
      record = { deliveryId: delivery.id, claimToken: delivery.claimToken, attempt, outcome };
    } catch (error) {
      // The sender must not reject; if it does, the claim expires and the delivery is sent again.
      this.#sending--;
      this.#unrecorded--;
      log?.({ msg: 'outbox_error', operation: 'send', error: String((error as Error)?.message ?? error) });
      this.#startReady();
      return;
    }
    this.#sending--;
    this.#finished.push({ delivery, record });
    this.#recording ??= this.#record();
    this.#startReady();
    if (this.#backlog) this.#nudge();
  }

  /** Logs an endpoint this instance disabled (never its secret) and tells its owner. */
  #endpointDisabled({ endpointId, reason }: { endpointId: string; reason: EndpointDisabledReason }): void {
    this.#options.log?.({ msg: 'endpoint_disabled', endpointId, reason });
    this.#track(Promise.resolve().then(() => this.#options.onEndpointDisabled?.({ endpointId, reason })).catch(() => undefined));
  }

  /**
   * Records the finished attempts, a batch per unit of work (one commit for every attempt that
   * finished while the previous unit ran), until none is waiting.
   */
  async #record(): Promise<void> {
    const { outbox, log } = this.#options;
    while (this.#finished.length > 0) {
      const batch = this.#finished.splice(0, MAX_RECORD_BATCH);
      try {
        const recorded = await outbox.recordAttempts(batch.map((b) => b.record));
        for (const [i, r] of recorded.entries()) {
          if (r.endpointDisabled === null) continue;
          this.#endpointDisabled({ endpointId: batch[i]!.delivery.endpointId, reason: r.endpointDisabled });
        }
      } catch (error) {
        // Unrecorded: the claims expire and the deliveries are attempted again (at-least-once).
        log?.({ msg: 'outbox_error', operation: 'record', error: String((error as Error)?.message ?? error) });
      }
      this.#unrecorded -= batch.length;
      if (this.#backlog) this.#nudge();
    }
    this.#recording = null;
  }
}

/**
 * Starts the dispatcher loop of one server instance: it claims due deliveries from the outbox (up
 * to `concurrency` in flight and as many claimed ahead), sends each once, and records the results
 * in batches (one unit of work for every attempt that finished while the previous one was being
 * recorded) with each delivery's next step: delivered, retried on the schedule of `nextAttemptAt`, or given up
 * (`410 Gone` at once, other failures after 3 days, disabling the endpoint). Several instances may
 * share one outbox: its claims keep them from sending a delivery twice (except after a crash).
 *
 * @example
 * ```ts
 * const dispatcher = startDispatcher({ outbox, sender: createWebhookSender({ allowance }), log: (e) => console.log(JSON.stringify(e)) });
 * // after queueing a notification:
 * dispatcher.wake();
 * // on shutdown:
 * await dispatcher.stop();
 * ```
 */
export function startDispatcher(options: DispatcherOptions): Dispatcher {
  return new DispatchLoop(options);
}
