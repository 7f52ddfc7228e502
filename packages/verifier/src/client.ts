import { encodeActivationRequest, normalizeLicenseKey } from '@svc-licensing/cert-format';
import { decideDeactivate, isRefreshDue, isRefusalRetryDue } from './client-decide.js';
import { LicenseClientError } from './client-errors.js';
import { HeartbeatSchedule, heartbeatDelayMs, retryDelayMs } from './client-heartbeat.js';
import { postJson, type HttpAnswer } from './client-http.js';
import { isBorrowing, leaseElapsedMs } from './client-lease.js';
import { resolveClientOptions, type LicenseClientOptions } from './client-options.js';
import { ClientSession, failure, staleError, type Refresh } from './client-session.js';
import type { ActivateOptions, ActivationRequestOptions, ImportCertificateOptions, LicenseActivation, LicenseCheck, LicenseClient, ReleaseOptions } from './client-types.js';
import type { LicenseState } from './storage.js';

export type {
  LicenseCheck,
  LicenseActivation,
  ActivateOptions,
  ActivationRequestOptions,
  ImportCertificateOptions,
  LicenseClient,
  ReleaseOptions,
  RevocationImport,
} from './client-types.js';

/** `release()` waits at most this long for the server (it runs in exit hooks). */
const RELEASE_TIMEOUT_MS = 5_000;

const keyArgument = (key: unknown, what: string): string => {
  if (typeof key !== 'string' || normalizeLicenseKey(key) === '') throw new LicenseClientError('invalid_argument', what);
  return normalizeLicenseKey(key);
};
const withKey = (state: LicenseState, what: string): LicenseState & { key: string } => {
  if (state.key === null) throw new LicenseClientError('no_license_key', what);
  return state as LicenseState & { key: string };
};

/**
 * Creates the client SDK of one product on one machine: `activate`, `validate`, `deactivate`,
 * `check`, and for floating seats `borrow`, `release` and the `heartbeat`, with the offline behaviour
 * of the spec (rule 4 of the client API, the effects of key rotation, the clock-rollback rule) and
 * of docs/floating-seats.md (a lease timed from its receipt). Errors from the server keep their spec
 * `code`. The methods are bound (`const { check } = client` works).
 *
 * @example
 * ```ts
 * import { createLicenseClient, createLocalStorage } from '@svc-licensing/verifier';
 * const client = createLicenseClient({
 *   baseUrl: 'https://licensing.example.com/v1',
 *   product: 'prd_123',
 *   publicKeys: { k1: 'Fvx3...base64url' },
 *   appVersion: '2.4.1',
 *   storage: createLocalStorage({ key: 'my-app:license' }),
 *   machineId: 'an ID that is stable for this machine',
 *   heartbeat: true, // floating seats: renew the lease while the app runs
 * });
 * await client.activate('MYAPP-ABCDE-FGHJK-LMNPQ-RSTUV', { name: 'Laptop' });
 * const license = await client.check();
 * if (license.valid) enable(license.payload!.entitlements);
 * else if (license.offline && license.refreshError) showWarning('offline');
 * addEventListener('pagehide', () => void client.release());
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function createLicenseClient(options: LicenseClientOptions): LicenseClient {
  return new Client(new ClientSession(resolveClientOptions(options)));
}

/** The client: each call runs after the previous one (one queue), over one session. */
class Client implements LicenseClient {
  readonly product: string;
  readonly fingerprint: string;
  readonly #session: ClientSession;
  readonly #heartbeat: HeartbeatSchedule;
  #queue: Promise<unknown> = Promise.resolve();
  /** Refreshes that failed in a row: the heartbeat's retry backs off with it. */
  #failures = 0;
  /** The release in flight, if any. */
  #releasing: Promise<{ released: boolean }> | null = null;

  constructor(session: ClientSession) {
    this.#session = session;
    this.#heartbeat = new HeartbeatSchedule(session.config.timers);
    this.product = session.config.product;
    this.fingerprint = session.config.fingerprint;
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #seconds(): number {
    return Math.floor(this.#session.config.now() / 1000);
  }

  /** Plans the next heartbeat for the state (when `heartbeat` is on), or stops it when there is nothing to renew. */
  #plan(state: LicenseState, force = false): void {
    if (!this.#session.config.heartbeat) return;
    const plan = this.#session.heartbeatPlan(state);
    if (plan === null) return this.#heartbeat.stop();
    if (!force && this.#heartbeat.pending && this.#heartbeat.plannedFor === state.certificate) return;
    const delay = this.#failures === 0 ? heartbeatDelayMs(plan.untilRefreshMs, plan.intervalMs, Math.random()) : retryDelayMs(plan.intervalMs, this.#failures, Math.random());
    this.#heartbeat.schedule(delay, state.certificate, this.#beat);
  }

  /** Counts a refresh's outcome for the retry backoff, and re-plans the heartbeat. */
  #refreshed(refresh: Refresh): void {
    this.#failures = refresh.action.action === 'keep' ? this.#failures + 1 : 0;
    this.#plan(refresh.state, true);
  }

  readonly #beat = (): void => {
    this.#serial(async () => {
      const state = await this.#session.keepRunTime(await this.#session.load());
      if (state.key === null || state.certificate === null || state.released) return null;
      const refresh = await this.#session.refresh({ ...state, key: state.key });
      this.#refreshed(refresh);
      const keep = refresh.action.action === 'keep' ? refresh.action.refreshError : null;
      return this.#session.evaluate(refresh.state, keep !== null, keep);
    }).then(
      (result) => {
        try {
          if (result !== null) this.#session.config.onHeartbeat?.(result);
        } catch (error) {
          // The app's callback threw: surface it as a listener's error would, outside the heartbeat.
          queueMicrotask(() => {
            throw error;
          });
        }
      },
      () => {
        // Storage failed: try again later, as after a network error.
        this.#failures++;
        if (this.#session.last !== null) this.#plan(this.#session.last, true);
      },
    );
  };

  readonly activate = (key: string, activateOptions: ActivateOptions = {}): Promise<LicenseActivation> =>
    this.#serial(async () => {
      const normalized = keyArgument(key, 'activate: expected a license key');
      const { product, fingerprint, appVersion } = this.#session.config;
      const { name, platform } = activateOptions;
      const body = { product, key: normalized, fingerprint, appVersion, ...(name === undefined ? {} : { name }), ...(platform === undefined ? {} : { platform }) };
      const { state, activation } = await this.#session.checkOut('activate', body, normalized, { name: name || null, platform: platform || null });
      this.#failures = 0;
      this.#plan(state, true);
      return { ...(await this.#session.evaluate(state, false, null)), activation };
    });

  readonly borrow = (days: number): Promise<LicenseActivation> =>
    this.#serial(async () => {
      if (!Number.isSafeInteger(days) || days < 1) throw new LicenseClientError('invalid_argument', 'borrow: days must be a whole number of days, at least 1');
      const { key } = withKey(await this.#session.load(), 'borrow: no license key stored; call activate() first');
      const { product, fingerprint } = this.#session.config;
      const { state, activation } = await this.#session.checkOut('borrow', { product, key, fingerprint, days }, key);
      this.#failures = 0;
      this.#plan(state, true);
      return { ...(await this.#session.evaluate(state, false, null)), activation };
    });

  readonly validate = (): Promise<LicenseCheck> =>
    this.#serial(async () => {
      const state = withKey(await this.#session.load(), 'validate: no license key stored; call activate() first');
      const refresh = await this.#session.refresh(state);
      this.#refreshed(refresh);
      if (refresh.error) throw refresh.error;
      return this.#session.evaluate(refresh.state, false, null);
    });

  readonly deactivate = (): Promise<{ released: boolean }> =>
    this.#serial(async () => {
      const state = withKey(await this.#session.load(), 'deactivate: no license key stored');
      this.#heartbeat.stop();
      const { product, fingerprint, timeoutMs } = this.#session.config;
      const answer = await postJson(this.#session.config.fetch, this.#session.config.endpoint('deactivate'), { product, key: state.key, fingerprint }, timeoutMs);
      const action = decideDeactivate(answer.kind === 'refused' ? { kind: 'refused', status: answer.status, code: answer.code } : answer);
      if (action.action === 'delete') {
        await this.#session.save({ ...state, key: null, certificate: null, lease: null, released: false, refusal: null });
        return { released: action.released };
      }
      if (action.action === 'clear') await this.#session.save({ ...state, certificate: null, lease: null, refusal: action.refusal });
      else this.#plan(state, true);
      throw failure(answer as Exclude<HttpAnswer, { kind: 'ok' }>);
    });

  readonly release = (releaseOptions: ReleaseOptions = {}): Promise<{ released: boolean }> => {
    // pagehide and beforeunload may both fire: one release at a time.
    this.#releasing ??= this.#release(releaseOptions).finally(() => (this.#releasing = null));
    return this.#releasing;
  };

  #release(releaseOptions: ReleaseOptions): Promise<{ released: boolean }> {
    this.#heartbeat.stop();
    const returnBorrow = releaseOptions?.returnBorrow === true;
    // Start the request now, from the state last seen, before any await: a closing page may not run more.
    const early = this.#session.last === null ? null : this.#sendRelease(this.#session.last, returnBorrow);
    return this.#serial(async () => {
      const state = await this.#session.load();
      const sent = early ?? this.#sendRelease(state, returnBorrow);
      const answer = sent === null ? null : await sent;
      this.#heartbeat.stop();
      if (answer === null) return { released: false };
      const action = decideDeactivate(answer.kind === 'refused' ? { kind: 'refused', status: answer.status, code: answer.code } : answer);
      if (action.action === 'delete') await this.#session.save({ ...state, certificate: null, lease: null, released: true, refusal: null });
      if (action.action === 'clear') await this.#session.save({ ...state, certificate: null, lease: null, refusal: action.refusal });
      return { released: action.action === 'delete' && action.released };
    }).catch(() => ({ released: false }));
  }

  /** The release request for a state holding a floating seat (not a borrowed one unless asked); null when there is nothing to release. */
  #sendRelease(state: LicenseState, returnBorrow: boolean): Promise<HttpAnswer> | null {
    if (state.key === null || state.certificate === null || state.lease === null || state.released) return null;
    const elapsedMs = leaseElapsedMs(state.lease, this.#session.timing.ranMs(state), this.#session.config.now());
    if (!returnBorrow && isBorrowing(state.lease, elapsedMs)) return null;
    const { product, fingerprint, timeoutMs, fetch } = this.#session.config;
    const body = { product, key: state.key, fingerprint };
    return postJson(fetch, this.#session.config.endpoint('deactivate'), body, Math.min(timeoutMs, RELEASE_TIMEOUT_MS), true);
  }

  readonly check = (): Promise<LicenseCheck> =>
    this.#serial(async () => {
      const state = await this.#session.keepRunTime(await this.#session.load());
      const cached = await this.#session.evaluate(state, true, null);
      if (state.key === null || cached.outcome === 'revoked') return cached;
      const keyed = { ...state, key: state.key };
      if (cached.outcome === null) {
        // Released: check a seat out again. Refused earlier: ask again at a bounded rate, so a reinstated license comes back.
        if (!state.released && (state.refusal === null || !isRefusalRetryDue(state.refusalCheckedAt, this.#seconds(), this.#session.config.refusalRetrySeconds))) return cached;
        const refresh = await this.#session.refresh(keyed);
        this.#refreshed(refresh);
        if (refresh.action.action !== 'keep') return this.#session.evaluate(refresh.state, false, null);
        if (!state.released) await this.#session.save({ ...state, refusalCheckedAt: this.#seconds() });
        return { ...cached, refreshError: refresh.action.refreshError };
      }
      const at = this.#session.instant(state);
      if (!isRefreshDue({ outcome: cached.outcome, refreshAfter: cached.payload?.refreshAfter ?? null }, at.seconds)) {
        this.#plan(state);
        return cached;
      }
      const refresh = await this.#session.refresh(keyed);
      this.#refreshed(refresh);
      if (refresh.action.action === 'keep') return { ...cached, refreshError: refresh.action.refreshError };
      return this.#session.evaluate(refresh.state, false, null);
    });

  readonly createActivationRequest = (requestOptions: ActivationRequestOptions = {}): string => {
    const { name, platform, key } = requestOptions;
    const normalized = key === undefined ? undefined : keyArgument(key, 'createActivationRequest: key must be a license key');
    const { product, fingerprint, appVersion } = this.#session.config;
    return encodeActivationRequest({
      v: 1,
      product,
      fingerprint,
      appVersion,
      createdAt: this.#seconds(),
      ...(name === undefined || name === '' ? {} : { name }),
      ...(platform === undefined || platform === '' ? {} : { platform }),
      ...(normalized === undefined ? {} : { key: normalized }),
    });
  };

  readonly importCertificate = (text: string, importOptions: ImportCertificateOptions = {}): Promise<LicenseCheck> =>
    this.#serial(async () => {
      if (typeof text !== 'string') throw new LicenseClientError('invalid_argument', 'importCertificate: expected the certificate text');
      const { key } = importOptions;
      const normalized = key === undefined ? undefined : keyArgument(key, 'importCertificate: key must be a license key');
      const certificate = text.trim();
      const state = await this.#session.load();
      const result = await this.#session.verify(certificate, state, this.#seconds());
      if (result.outcome !== 'valid') {
        throw new LicenseClientError('invalid_certificate', `the certificate does not verify: ${result.outcome}`, { outcome: result.outcome });
      }
      if (this.#session.isStale(state, result.payload)) throw staleError(result.payload, state.highestIssuedAt);
      const next = await this.#session.save(this.#session.withCertificate(state, normalized ?? state.key, certificate, result.payload, null));
      this.#plan(next, true);
      return this.#session.evaluate(next, false, null);
    });

  readonly importRevocationList = (text: string) =>
    this.#serial(async () => {
      const { answer, next } = await this.#session.keeper.consider(await this.#session.load(), text);
      if (next !== null) await this.#session.save(next);
      return answer;
    });
}
