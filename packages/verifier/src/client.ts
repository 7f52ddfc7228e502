import { encodeActivationRequest, normalizeLicenseKey, type CertificatePayload } from '@svc-licensing/cert-format';
import { decideDeactivate, decideRefresh, isRefreshDue, isRefusalRetryDue, isTrustedOutcome, type RefreshAction } from './client-decide.js';
import { LicenseClientError } from './client-errors.js';
import { postJson, type HttpAnswer } from './client-http.js';
import { resolveClientOptions, type LicenseClientOptions } from './client-options.js';
import type { VerificationOutcome } from './outcomes.js';
import { decodeLicenseState, encodeLicenseState, type LicenseState } from './storage.js';
import { verifyCertificate, type VerificationResult } from './verify.js';

/** The answer of `check()` (and of `validate()` and `activate()` when they succeed). */
export interface LicenseCheck {
  /** True when the certificate verified: the app may run with `payload.entitlements`. */
  valid: boolean;
  /** The verification outcome of the certificate the answer is based on; null when there is none. */
  outcome: VerificationOutcome | null;
  /** The certificate's payload (present whenever its signature verified, also when expired). */
  payload: CertificatePayload | null;
  /** True when the answer comes from the cached certificate, not from a certificate the server just issued. */
  offline: boolean;
  /**
   * Why the license is not valid; null when valid. A verification outcome (`expired`,
   * `clock_tampered`, ...), the server's code that cleared the certificate (`license_revoked`,
   * `not_activated`, ...), or `no_certificate` when nothing is activated on this machine.
   */
  reason: string | null;
  /**
   * When a due refresh did not succeed and the cached certificate was kept: why (`network_error`,
   * `rate_limited`, `internal_error`, `invalid_certificate`, ...). Null otherwise.
   */
  refreshError: string | null;
}

/** The answer of `activate()`: the check of the new certificate plus the activation ID (`act_...`). */
export interface LicenseActivation extends LicenseCheck {
  activation: string;
}

/** Optional details recorded with an activation. */
export interface ActivateOptions {
  /** A name for this machine shown to the vendor, e.g. the host name. */
  name?: string;
  /** The platform, e.g. `process.platform` or `navigator.platform`. */
  platform?: string;
}

/** What an air-gapped machine's activation request carries besides the product, fingerprint and app version. */
export interface ActivationRequestOptions extends ActivateOptions {
  /** The license key, when the customer wants it in the request (then the vendor need not pick the license). */
  key?: string;
}

/** Options of `importCertificate()`. */
export interface ImportCertificateOptions {
  /**
   * The license key, stored so `check()` can refresh online if the machine ever gets a connection.
   * Default: the key already stored on this machine, if any.
   */
  key?: string;
}

/** The online client of one product on one machine. Calls on one client run one at a time, in order. */
export interface LicenseClient {
  /** The product ID. */
  readonly product: string;
  /** This machine's fingerprint for the product (64 lowercase hex). */
  readonly fingerprint: string;
  /** Activates this machine with a license key; stores the key and the certificate. Throws `LicenseClientError`. */
  activate(key: string, options?: ActivateOptions): Promise<LicenseActivation>;
  /** Validates online now, applying rule 4 to the stored state; throws `LicenseClientError` when no new certificate was stored. */
  validate(): Promise<LicenseCheck>;
  /** Frees this machine's seat; deletes the stored certificate and key (also on a 404). Throws on other failures. */
  deactivate(): Promise<{ released: boolean }>;
  /**
   * The license state for the app: offline from the cache, online once `refreshAfter` has passed, and,
   * after the server refused the license, online again at most once per `refusalRetryMs`. Never throws for the network.
   */
  check(): Promise<LicenseCheck>;
  /**
   * The activation request of this machine for an air-gapped activation: the text `SVCREQ1.<...>`
   * (see the README) that the customer carries to the portal or the vendor. Reads and writes nothing.
   */
  createActivationRequest(options?: ActivationRequestOptions): string;
  /**
   * Stores the certificate the portal or vendor returned for this machine's activation request, after
   * verifying it with all nine rules (anything but `valid` throws `invalid_certificate`; one older than
   * the newest already seen throws `stale_certificate`). Stored exactly as an online activation is.
   */
  importCertificate(text: string, options?: ImportCertificateOptions): Promise<LicenseCheck>;
}

/** What one validate call did to the state. */
interface Refresh {
  state: LicenseState;
  action: RefreshAction;
  error: LicenseClientError | null;
}

const failure = (answer: Exclude<HttpAnswer, { kind: 'ok' }>): LicenseClientError =>
  answer.kind === 'network_error'
    ? new LicenseClientError('network_error', 'the licensing server could not be reached', { cause: answer.cause })
    : new LicenseClientError(answer.code ?? 'invalid_response', answer.message, { status: answer.status });

const invalidResponse = (what: string): Exclude<HttpAnswer, { kind: 'ok' }> => ({ kind: 'refused', status: 200, code: null, message: `the answer has no ${what}` });

/**
 * Creates the client SDK of one product on one machine: `activate`, `validate`, `deactivate` and
 * `check`, with the offline behaviour of the spec (rule 4 of the client API, the effects of key
 * rotation, the clock-rollback rule). Errors from the server keep their spec `code`.
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
 * });
 * await client.activate('MYAPP-ABCDE-FGHJK-LMNPQ-RSTUV', { name: 'Laptop' });
 * const license = await client.check();
 * if (license.valid) enable(license.payload!.entitlements);
 * else if (license.offline && license.refreshError) showWarning('offline');
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function createLicenseClient(options: LicenseClientOptions): LicenseClient {
  const config = resolveClientOptions(options);
  const { product, fingerprint, appVersion } = config;
  const nowSeconds = (): number => Math.floor(config.now() / 1000);

  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  const load = async (): Promise<LicenseState> => {
    try {
      return decodeLicenseState(await config.storage.read(), product);
    } catch (cause) {
      throw new LicenseClientError('storage_error', 'the license storage could not be read', { cause });
    }
  };
  const save = async (state: LicenseState): Promise<void> => {
    try {
      await config.storage.write(encodeLicenseState(state));
    } catch (cause) {
      throw new LicenseClientError('storage_error', 'the license storage could not be written', { cause });
    }
  };

  const verify = (certificate: string, highestIssuedAt: number | null): Promise<VerificationResult> =>
    verifyCertificate(certificate, {
      publicKeys: config.publicKeys,
      product,
      fingerprint,
      appMajor: config.appMajor,
      now: nowSeconds(),
      highestIssuedAt,
    });

  /** The check of the stored state, without any network. */
  const evaluate = async (state: LicenseState, offline: boolean, refreshError: string | null): Promise<LicenseCheck> => {
    if (state.certificate === null) {
      return { valid: false, outcome: null, payload: null, offline: false, reason: state.refusal ?? 'no_certificate', refreshError };
    }
    const { outcome, payload } = await verify(state.certificate, state.highestIssuedAt);
    return { valid: outcome === 'valid', outcome, payload: payload ?? null, offline, reason: outcome === 'valid' ? null : outcome, refreshError };
  };

  /** The state holding a new trusted certificate; the highest issuedAt only ever grows. */
  const withCertificate = (state: LicenseState, key: string | null, certificate: string, payload: CertificatePayload | undefined): LicenseState => ({
    ...state,
    key,
    certificate,
    highestIssuedAt: Math.max(state.highestIssuedAt ?? 0, payload?.issuedAt ?? 0) || null,
    refusal: null,
    refusalCheckedAt: null,
  });

  /** True when a certificate is older than the newest this machine has seen (a replayed answer). */
  const isStale = (state: LicenseState, payload: CertificatePayload | undefined): boolean =>
    payload !== undefined && state.highestIssuedAt !== null && payload.issuedAt < state.highestIssuedAt;
  const staleError = (payload: CertificatePayload | undefined, highest: number | null): LicenseClientError =>
    new LicenseClientError('stale_certificate', `the certificate was issued at ${payload?.issuedAt}, before the newest one seen here (${highest})`, {
      status: 200,
    });

  /** One validate call and its effect on the stored state (rule 4). */
  const refresh = async (state: LicenseState & { key: string }): Promise<Refresh> => {
    const answer = await postJson(config.fetch, config.endpoint('validate'), { product, key: state.key, fingerprint, appVersion }, config.timeoutMs);
    let failed: Exclude<HttpAnswer, { kind: 'ok' }>;
    if (answer.kind !== 'ok') failed = answer;
    else {
      const certificate = answer.body.certificate;
      if (typeof certificate === 'string') {
        const result = await verify(certificate, state.highestIssuedAt);
        const stale = isStale(state, result.payload);
        const action = decideRefresh({ kind: 'certificate', outcome: result.outcome, stale });
        if (action.action === 'keep') {
          const error = stale
            ? staleError(result.payload, state.highestIssuedAt)
            : new LicenseClientError('invalid_certificate', `the new certificate does not verify: ${result.outcome}`, {
                status: 200,
                outcome: result.outcome,
              });
          return { state, action, error };
        }
        const next = withCertificate(state, state.key, certificate, result.payload);
        await save(next);
        return { state: next, action, error: null };
      }
      failed = invalidResponse('certificate');
    }
    const action = decideRefresh(failed.kind === 'network_error' ? failed : { kind: 'refused', status: failed.status, code: failed.code });
    if (action.action === 'clear') {
      const next: LicenseState = { ...state, certificate: null, refusal: action.refusal, refusalCheckedAt: nowSeconds() };
      await save(next);
      return { state: next, action, error: failure(failed) };
    }
    return { state, action, error: failure(failed) };
  };

  return {
    product,
    fingerprint,

    activate: (key, activateOptions = {}) =>
      serial(async () => {
        if (typeof key !== 'string' || normalizeLicenseKey(key) === '') {
          throw new LicenseClientError('invalid_argument', 'activate: expected a license key');
        }
        const normalized = normalizeLicenseKey(key);
        const state = await load();
        const { name, platform } = activateOptions;
        const body = { product, key: normalized, fingerprint, appVersion, ...(name === undefined ? {} : { name }), ...(platform === undefined ? {} : { platform }) };
        let answer = await postJson(config.fetch, config.endpoint('activate'), body, config.timeoutMs);
        if (answer.kind === 'ok' && (typeof answer.body.certificate !== 'string' || typeof answer.body.activation !== 'string')) {
          answer = invalidResponse('certificate or activation');
        }
        if (answer.kind !== 'ok') throw failure(answer);
        const certificate = answer.body.certificate as string;
        const result = await verify(certificate, state.highestIssuedAt);
        if (!isTrustedOutcome(result.outcome)) {
          // The server has recorded the activation: keep the key so deactivate() can free the seat.
          if (state.key !== normalized) await save({ ...state, key: normalized, certificate: null, refusal: null });
          throw new LicenseClientError('invalid_certificate', `the certificate does not verify: ${result.outcome}`, {
            status: 200,
            outcome: result.outcome,
          });
        }
        if (isStale(state, result.payload)) throw staleError(result.payload, state.highestIssuedAt);
        const next = withCertificate(state, normalized, certificate, result.payload);
        await save(next);
        return { ...(await evaluate(next, false, null)), activation: answer.body.activation as string };
      }),

    validate: () =>
      serial(async () => {
        const state = await load();
        if (state.key === null) throw new LicenseClientError('no_license_key', 'validate: no license key stored; call activate() first');
        const { state: next, error } = await refresh({ ...state, key: state.key });
        if (error) throw error;
        return evaluate(next, false, null);
      }),

    deactivate: () =>
      serial(async () => {
        const state = await load();
        if (state.key === null) throw new LicenseClientError('no_license_key', 'deactivate: no license key stored');
        const answer = await postJson(config.fetch, config.endpoint('deactivate'), { product, key: state.key, fingerprint }, config.timeoutMs);
        const action = decideDeactivate(answer.kind === 'refused' ? { kind: 'refused', status: answer.status, code: answer.code } : answer);
        if (action.action === 'delete') {
          await save({ ...state, key: null, certificate: null, refusal: null });
          return { released: action.released };
        }
        if (action.action === 'clear') await save({ ...state, certificate: null, refusal: action.refusal });
        throw failure(answer as Exclude<HttpAnswer, { kind: 'ok' }>);
      }),

    check: () =>
      serial(async () => {
        const state = await load();
        const cached = await evaluate(state, true, null);
        if (state.key === null) return cached;
        if (cached.outcome === null) {
          // Refused earlier: ask again at a bounded rate, so a reinstated license comes back by itself.
          if (state.refusal === null || !isRefusalRetryDue(state.refusalCheckedAt, nowSeconds(), config.refusalRetrySeconds)) return cached;
          const { state: next, action } = await refresh({ ...state, key: state.key });
          if (action.action === 'keep') {
            await save({ ...state, refusalCheckedAt: nowSeconds() });
            return { ...cached, refreshError: action.refreshError };
          }
          return evaluate(next, false, null);
        }
        const due = isRefreshDue({ outcome: cached.outcome, refreshAfter: cached.payload?.refreshAfter ?? null }, nowSeconds());
        if (!due) return cached;
        const { state: next, action } = await refresh({ ...state, key: state.key });
        if (action.action === 'keep') return { ...cached, refreshError: action.refreshError };
        return evaluate(next, false, null);
      }),

    createActivationRequest: (requestOptions = {}) => {
      const { name, platform, key } = requestOptions;
      if (key !== undefined && (typeof key !== 'string' || normalizeLicenseKey(key) === '')) {
        throw new LicenseClientError('invalid_argument', 'createActivationRequest: key must be a license key');
      }
      return encodeActivationRequest({
        v: 1,
        product,
        fingerprint,
        appVersion,
        createdAt: nowSeconds(),
        ...(name === undefined || name === '' ? {} : { name }),
        ...(platform === undefined || platform === '' ? {} : { platform }),
        ...(key === undefined ? {} : { key: normalizeLicenseKey(key) }),
      });
    },

    importCertificate: (text, importOptions = {}) =>
      serial(async () => {
        if (typeof text !== 'string') throw new LicenseClientError('invalid_argument', 'importCertificate: expected the certificate text');
        const { key } = importOptions;
        if (key !== undefined && (typeof key !== 'string' || normalizeLicenseKey(key) === '')) {
          throw new LicenseClientError('invalid_argument', 'importCertificate: key must be a license key');
        }
        const certificate = text.trim();
        const state = await load();
        const result = await verify(certificate, state.highestIssuedAt);
        if (result.outcome !== 'valid') {
          throw new LicenseClientError('invalid_certificate', `the certificate does not verify: ${result.outcome}`, { outcome: result.outcome });
        }
        if (isStale(state, result.payload)) throw staleError(result.payload, state.highestIssuedAt);
        const next = withCertificate(state, key === undefined ? state.key : normalizeLicenseKey(key), certificate, result.payload);
        await save(next);
        return evaluate(next, false, null);
      }),
  };
}
