import type { LicenseEngine } from '@svc-licensing/license-engine';

/** An integration's secrets as the engine hands them out (`getIntegrationSecrets`). */
export type IntegrationSecrets = NonNullable<Awaited<ReturnType<LicenseEngine['getIntegrationSecrets']>>>;

/** How many integrations' secrets (and unknown IDs) a receiver remembers before it starts over (reads again). */
const KNOWN_INTEGRATIONS = 1000;
const UNKNOWN_IDS = 10_000;
/** How long an integration ID found to be no integration is answered `404` without a read. */
export const UNKNOWN_ID_MS = 60_000;

/** A read of an integration's secrets: its answer, and whether it started after the delivery that asked arrived. */
export interface SecretsRead {
  secrets: IntegrationSecrets | null;
  /** True when the read began after the delivery arrived: it saw every secret committed before then. */
  current: boolean;
}

/**
 * The secrets of integrations seen, by ID, so a delivery is verified without a database read; its
 * unit of work checks that they are still the integration's (`secretsVersion`), and any refusal
 * made with them is checked again with secrets read after the delivery arrived.
 *
 * What a flood costs is bounded here: an ID found to be no integration is remembered for
 * `UNKNOWN_ID_MS` (IDs are random: no integration made later can have it), and the reads of one
 * integration are one at a time, each shared by every delivery that arrived before it began, so a
 * thousand badly signed deliveries at once cost a few reads, and a correctly signed one is still
 * checked against secrets read after it arrived.
 */
export class RememberedSecrets {
  readonly #known = new Map<string, IntegrationSecrets>();
  readonly #unknown = new Map<string, number>();
  readonly #reads = new Map<string, { startedAt: number; promise: Promise<IntegrationSecrets | null> }>();
  readonly #now: () => number;
  #arrivals = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Numbers a delivery's arrival, for {@link fresh}. */
  arrive(): number {
    return ++this.#arrivals;
  }

  /** The secrets remembered for the integration, null for an ID known to be none, or undefined (read them with {@link fresh}). */
  remembered(integrationId: string): IntegrationSecrets | null | undefined {
    const known = this.#known.get(integrationId);
    if (known !== undefined) return known;
    const until = this.#unknown.get(integrationId);
    if (until === undefined) return undefined;
    if (until > this.#now()) return null;
    this.#unknown.delete(integrationId);
    return undefined;
  }

  /**
   * Reads the integration's current secrets and remembers them (null: no such integration). A read
   * already running is joined when it began after `arrived`, or with `any`; otherwise the next read
   * is, once it ends: one read at a time per integration.
   */
  async fresh(engine: Pick<LicenseEngine, 'getIntegrationSecrets'>, integrationId: string, arrived: number, any = false): Promise<SecretsRead> {
    for (;;) {
      const running = this.#reads.get(integrationId);
      if (running !== undefined && (any || running.startedAt >= arrived)) return { secrets: await running.promise, current: running.startedAt >= arrived };
      if (running !== undefined) {
        await running.promise.catch(() => undefined);
        continue;
      }
      const startedAt = this.#arrivals;
      const promise: Promise<IntegrationSecrets | null> = this.#read(engine, integrationId).finally(() => {
        if (this.#reads.get(integrationId)?.promise === promise) this.#reads.delete(integrationId);
      });
      this.#reads.set(integrationId, { startedAt, promise });
      return { secrets: await promise, current: startedAt >= arrived };
    }
  }

  async #read(engine: Pick<LicenseEngine, 'getIntegrationSecrets'>, integrationId: string): Promise<IntegrationSecrets | null> {
    const secrets = await engine.getIntegrationSecrets(integrationId);
    if (!secrets) {
      this.#known.delete(integrationId);
      if (this.#unknown.size >= UNKNOWN_IDS) this.#unknown.clear();
      this.#unknown.set(integrationId, this.#now() + UNKNOWN_ID_MS);
    } else {
      if (this.#known.size >= KNOWN_INTEGRATIONS) this.#known.clear();
      this.#unknown.delete(integrationId);
      this.#known.set(integrationId, secrets);
    }
    return secrets;
  }

  /** Forgets an integration that is gone. */
  forget(integrationId: string): void {
    this.#known.delete(integrationId);
  }
}
