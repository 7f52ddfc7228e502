import { randomUUID } from 'node:crypto';
import type { AttemptRecord, AttemptToRecord, ClaimedDelivery, EndpointDisabledReason, OutboxPort, RecordedAttempt } from './outbox-port.js';
import { activeSigningSecrets } from './signing-secrets.js';
import type { SigningSecrets } from './signing-secrets.js';

/** An endpoint as the outbox sees it. */
export interface OutboxEndpoint {
  id: string;
  url: string;
  secrets: SigningSecrets;
  enabled: boolean;
  disabledReason: EndpointDisabledReason | null;
  /** The last successful attempt (epoch ms); null when none. */
  lastSuccessAt: number | null;
}

/** A delivery as the outbox keeps it. */
export interface OutboxDelivery {
  id: string;
  endpointId: string;
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  /** When it is due (epoch ms); null once delivered or failed. */
  nextAttemptAt: number | null;
  firstAttemptAt: number | null;
  attempts: AttemptRecord[];
  claim: { token: string; until: number } | null;
}

/** The reference outbox: the port plus what a test (or the later store) needs to fill and read it. */
export interface MemoryOutbox extends OutboxPort {
  addEndpoint(endpoint: { id: string; url: string; secrets: SigningSecrets }): void;
  /** Queues a delivery due at `dueAt`. */
  enqueue(delivery: { id: string; endpointId: string; body: string; dueAt: number }): void;
  /** Copies, so a reader cannot change the outbox. */
  delivery(id: string): OutboxDelivery | undefined;
  endpoint(id: string): OutboxEndpoint | undefined;
}

class InMemoryOutbox implements MemoryOutbox {
  readonly #endpoints = new Map<string, OutboxEndpoint>();
  readonly #deliveries = new Map<string, OutboxDelivery>();

  addEndpoint(endpoint: { id: string; url: string; secrets: SigningSecrets }): void {
    this.#endpoints.set(endpoint.id, { ...endpoint, enabled: true, disabledReason: null, lastSuccessAt: null });
  }

  enqueue(delivery: { id: string; endpointId: string; body: string; dueAt: number }): void {
    if (this.#deliveries.has(delivery.id)) throw new Error(`delivery ${delivery.id} is queued already`);
    if (!this.#endpoints.has(delivery.endpointId)) throw new Error(`no endpoint ${delivery.endpointId}`);
    const { id, endpointId, body, dueAt } = delivery;
    this.#deliveries.set(id, { id, endpointId, body, state: 'pending', nextAttemptAt: dueAt, firstAttemptAt: null, attempts: [], claim: null });
  }

  delivery(id: string): OutboxDelivery | undefined {
    return structuredClone(this.#deliveries.get(id));
  }

  endpoint(id: string): OutboxEndpoint | undefined {
    return structuredClone(this.#endpoints.get(id));
  }

  async claimDue({ now, limit, leaseMs }: { now: number; limit: number; leaseMs: number }): Promise<ClaimedDelivery[]> {
    const due = [...this.#deliveries.values()]
      .filter((d) => d.state === 'pending' && (d.nextAttemptAt as number) <= now && (d.claim === null || d.claim.until <= now))
      .filter((d) => this.#endpoints.get(d.endpointId)?.enabled === true)
      .sort((a, b) => (a.nextAttemptAt as number) - (b.nextAttemptAt as number))
      .slice(0, Math.max(0, limit));
    return due.map((d) => {
      const endpoint = this.#endpoints.get(d.endpointId) as OutboxEndpoint;
      d.claim = { token: randomUUID(), until: now + leaseMs };
      return {
        id: d.id,
        endpointId: d.endpointId,
        url: endpoint.url,
        signingSecrets: activeSigningSecrets(endpoint.secrets, now),
        body: d.body,
        attempts: d.attempts.length,
        firstAttemptAt: d.firstAttemptAt,
        claimToken: d.claim.token,
      };
    });
  }

  async recordAttempts(attempts: readonly AttemptToRecord[]): Promise<RecordedAttempt[]> {
    return attempts.map((input) => this.#record(input));
  }

  #record(input: AttemptToRecord): RecordedAttempt {
    const delivery = this.#deliveries.get(input.deliveryId);
    if (delivery === undefined || delivery.claim?.token !== input.claimToken) return { recorded: false, endpointDisabled: null };
    const endpoint = this.#endpoints.get(delivery.endpointId) as OutboxEndpoint;
    const { attempt, outcome } = input;
    delivery.attempts.push({ ...attempt });
    delivery.firstAttemptAt ??= attempt.at;
    delivery.claim = null;
    delivery.state = outcome.kind === 'retry' ? 'pending' : outcome.kind === 'delivered' ? 'delivered' : 'failed';
    delivery.nextAttemptAt = outcome.kind === 'retry' ? outcome.at : null;
    let endpointDisabled: EndpointDisabledReason | null = null;
    if (outcome.kind === 'delivered') endpoint.lastSuccessAt = Math.max(endpoint.lastSuccessAt ?? 0, attempt.at);
    const failedThroughout = outcome.kind === 'exhausted' && (endpoint.lastSuccessAt ?? -Infinity) < delivery.firstAttemptAt;
    if (endpoint.enabled && (outcome.kind === 'gone' || failedThroughout)) {
      endpointDisabled = outcome.kind === 'gone' ? 'gone' : 'failing';
      endpoint.enabled = false;
      endpoint.disabledReason = endpointDisabled;
    }
    return { recorded: true, endpointDisabled };
  }
}

/**
 * The outbox port's reference implementation, in memory (nothing survives the process): the
 * behaviour every store-backed outbox must match, checked by the shared conformance suite.
 *
 * @example
 * ```ts
 * const outbox = createMemoryOutbox();
 * outbox.addEndpoint({ id: 'wep_1', url: 'https://hooks.example.com/svc', secrets: { current: generateWebhookSecret(), previous: null } });
 * outbox.enqueue({ id: 'msg_1', endpointId: 'wep_1', body, dueAt: Date.now() });
 * const dispatcher = startDispatcher({ outbox, sender: createWebhookSender() });
 * ```
 */
export function createMemoryOutbox(): MemoryOutbox {
  return new InMemoryOutbox();
}
