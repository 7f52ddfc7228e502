import { decodeCertificate, type CertificatePayload } from '@svc-licensing/cert-format';
import { decideRefresh, isTrustedOutcome, type RefreshAction } from './client-decide.js';
import { LicenseClientError } from './client-errors.js';
import { postJson, type HttpAnswer } from './client-http.js';
import { LeaseTiming, leaseElapsedMs, leaseNowSeconds, leaseReport, parseAnswerLease, RAN_SAVE_STEP_MS, receiveLease, type AnswerLease } from './client-lease.js';
import type { ClientConfig } from './client-options.js';
import { RevocationKeeper } from './client-revocations.js';
import type { LicenseCheck } from './client-types.js';
import { decodeLicenseState, encodeLicenseState, type LicenseState, type StoredLease } from './storage.js';
import { verifyCertificate, type VerificationResult } from './verify.js';

/** What one validate call (or a released machine's check-out) did to the state. */
export interface Refresh {
  state: LicenseState;
  action: RefreshAction;
  error: LicenseClientError | null;
}

/** The state's clocks at one instant: the wall clock, and the second the certificate is evaluated at. */
interface Instant {
  wallMs: number;
  /** Milliseconds of the floating lease gone by since receipt (0 without a lease). */
  elapsedMs: number;
  /** Unix seconds: the wall clock, or for a floating lease its `issuedAt` + the time gone by. */
  seconds: number;
}

type Failed = Exclude<HttpAnswer, { kind: 'ok' }>;

/** The error a failed client API call gives; the server's code is kept. */
export const failure = (answer: Failed): LicenseClientError =>
  answer.kind === 'network_error'
    ? new LicenseClientError('network_error', 'the licensing server could not be reached', { cause: answer.cause })
    : new LicenseClientError(answer.code ?? 'invalid_response', answer.message, { status: answer.status });

const invalidResponse = (what: string): Failed => ({ kind: 'refused', status: 200, code: null, message: `the answer has no ${what}` });

/** The error for a certificate older than the newest one seen here (a replayed answer). */
export const staleError = (payload: CertificatePayload | undefined, highest: number | null): LicenseClientError =>
  new LicenseClientError('stale_certificate', `the certificate was issued at ${payload?.issuedAt}, before the newest one seen here (${highest})`, { status: 200 });

const untrusted = (outcome: string): LicenseClientError =>
  new LicenseClientError('invalid_certificate', `the certificate does not verify: ${outcome}`, { status: 200, outcome });

/**
 * The client's stored state and what it takes to judge it: storage I/O, verification at the right
 * instant (the wall clock, or a floating lease's own time), the revocation list, and taking a
 * certificate the server just issued. The client's methods (client.ts) are built on it.
 */
export class ClientSession {
  readonly config: ClientConfig;
  readonly keeper: RevocationKeeper;
  readonly timing: LeaseTiming;
  /** The state as last read or written by this client: `release()` starts its request from it without waiting. */
  last: LicenseState | null = null;

  constructor(config: ClientConfig) {
    this.config = config;
    this.keeper = new RevocationKeeper(config);
    this.timing = new LeaseTiming(config.monotonicNow);
  }

  async load(): Promise<LicenseState> {
    try {
      this.last = decodeLicenseState(await this.config.storage.read(), this.config.product);
      return this.last;
    } catch (cause) {
      throw new LicenseClientError('storage_error', 'the license storage could not be read', { cause });
    }
  }

  /** Writes the state, with the run time of its lease as counted now. Returns what was written. */
  async save(state: LicenseState): Promise<LicenseState> {
    const written = state.lease === null || state.certificate === null ? state : { ...state, lease: { ...state.lease, ranMs: Math.round(this.timing.ranMs(state)) } };
    try {
      await this.config.storage.write(encodeLicenseState(written));
    } catch (cause) {
      throw new LicenseClientError('storage_error', 'the license storage could not be written', { cause });
    }
    this.last = written;
    return written;
  }

  /** The clocks of the state now. */
  instant(state: LicenseState): Instant {
    const wallMs = this.config.now();
    if (state.lease === null || state.certificate === null) return { wallMs, elapsedMs: 0, seconds: Math.floor(wallMs / 1000) };
    const elapsedMs = leaseElapsedMs(state.lease, this.timing.ranMs(state), wallMs);
    return { wallMs, elapsedMs, seconds: leaseNowSeconds(state.lease, elapsedMs) };
  }

  /** Saves the lease's run time again once it grew by 10 s, so a frozen or set-back clock cannot give the time back after a restart. */
  async keepRunTime(state: LicenseState): Promise<LicenseState> {
    if (state.lease === null || state.certificate === null) return state;
    return this.timing.ranMs(state) - state.lease.ranMs >= RAN_SAVE_STEP_MS ? this.save(state) : state;
  }

  /** Verifies a certificate at `seconds`, against the state's clock-rollback mark and its revocation list, if any. */
  async verify(certificate: string, state: LicenseState, seconds: number): Promise<VerificationResult> {
    const { publicKeys, product, fingerprint, appMajor } = this.config;
    const revocations = await this.keeper.listOf(state);
    return verifyCertificate(certificate, { publicKeys, product, fingerprint, appMajor, now: seconds, highestIssuedAt: state.highestIssuedAt, revocations });
  }

  /**
   * The check of the stored state, without any network. A certificate the held revocation list names
   * is dropped from storage (reason `revoked`); the key stays, so the refusal retry can ask the server.
   */
  async evaluate(state: LicenseState, offline: boolean, refreshError: string | null): Promise<LicenseCheck> {
    if (state.certificate === null) {
      const reason = state.released && state.key !== null ? 'released' : (state.refusal ?? 'no_certificate');
      return { valid: false, outcome: null, payload: null, offline: false, reason, refreshError, lease: null };
    }
    const at = this.instant(state);
    const { outcome, payload } = await this.verify(state.certificate, state, at.seconds);
    if (outcome === 'revoked') await this.save({ ...state, certificate: null, lease: null, refusal: 'revoked', refusalCheckedAt: Math.floor(at.wallMs / 1000) });
    const lease = payload === undefined || outcome === 'revoked' ? null : leaseReport(payload, state.lease, at.elapsedMs, at.wallMs);
    return { valid: outcome === 'valid', outcome, payload: payload ?? null, offline, reason: outcome === 'valid' ? null : outcome, refreshError, lease };
  }

  /** Takes a newer revocation list when a client API answer announces one (`revocationListSeq`). */
  async syncRevocations(state: LicenseState, body: Record<string, unknown>): Promise<LicenseState> {
    const next = await this.keeper.fetchIfNewer(state, body.revocationListSeq);
    return next === null ? state : this.save(next);
  }

  /**
   * Verifies a certificate that just arrived: with a `lease`, at the instant its receipt gives it
   * (client-lease.ts); without, at the wall clock, as any certificate.
   */
  async verifyReceived(state: LicenseState, certificate: string, answerLease: AnswerLease | null): Promise<{ result: VerificationResult; lease: StoredLease | null }> {
    const wallMs = this.config.now();
    const decoded = decodeCertificate(certificate);
    const { issuedAt, expiresAt } = decoded.ok ? (decoded.payload as Record<string, unknown>) : {};
    if (answerLease === null || !Number.isSafeInteger(issuedAt) || !Number.isSafeInteger(expiresAt)) {
      return { result: await this.verify(certificate, state, Math.floor(wallMs / 1000)), lease: null };
    }
    const times = { issuedAt: issuedAt as number, expiresAt: expiresAt as number };
    const lease = receiveLease(state.lease, this.timing.ranMs(state), answerLease, times, wallMs);
    const result = await this.verify(certificate, state, leaseNowSeconds(lease, leaseElapsedMs(lease, lease.ranMs, wallMs)));
    return { result, lease };
  }

  /** The state holding a new trusted certificate (and its lease, timed from now); the highest issuedAt only ever grows. */
  withCertificate(state: LicenseState, key: string | null, certificate: string, payload: CertificatePayload | undefined, lease: StoredLease | null): LicenseState {
    if (lease !== null) this.timing.anchor(certificate, lease.ranMs);
    return {
      ...state,
      key,
      certificate,
      lease,
      released: false,
      highestIssuedAt: Math.max(state.highestIssuedAt ?? 0, payload?.issuedAt ?? 0) || null,
      refusal: null,
      refusalCheckedAt: null,
    };
  }

  /** True when a certificate is older than the newest this machine has seen (a replayed answer). */
  isStale(state: LicenseState, payload: CertificatePayload | undefined): boolean {
    return payload !== undefined && state.highestIssuedAt !== null && payload.issuedAt < state.highestIssuedAt;
  }

  /**
   * One validate call and its effect on the stored state (rule 4). A machine that released its seat
   * checks one out again instead (activate, with the name and platform it was activated with).
   */
  async refresh(state: LicenseState & { key: string }): Promise<Refresh> {
    const { product, fingerprint, appVersion } = this.config;
    const again = state.released ? { ...(state.name === null ? {} : { name: state.name }), ...(state.platform === null ? {} : { platform: state.platform }) } : null;
    const body = { product, key: state.key, fingerprint, appVersion, ...again };
    const answer = await postJson(this.config.fetch, this.config.endpoint(again === null ? 'validate' : 'activate'), body, this.config.timeoutMs);
    let failed: Failed;
    if (answer.kind !== 'ok') failed = answer;
    else {
      const synced = await this.syncRevocations(state, answer.body);
      const certificate = answer.body.certificate;
      if (typeof certificate === 'string') {
        const { result, lease } = await this.verifyReceived(synced, certificate, parseAnswerLease(answer.body.lease));
        const stale = this.isStale(synced, result.payload);
        const action = decideRefresh({ kind: 'certificate', outcome: result.outcome, stale });
        if (action.action === 'keep') return { state: synced, action, error: stale ? staleError(result.payload, synced.highestIssuedAt) : untrusted(result.outcome) };
        const next = await this.save(this.withCertificate(synced, state.key, certificate, result.payload, lease));
        return { state: next, action, error: null };
      }
      failed = invalidResponse('certificate');
    }
    const action = decideRefresh(failed.kind === 'network_error' ? failed : { kind: 'refused', status: failed.status, code: failed.code });
    if (action.action === 'clear') {
      const cleared = { ...state, certificate: null, lease: null, released: false, refusal: action.refusal, refusalCheckedAt: Math.floor(this.config.now() / 1000) };
      return { state: await this.save(cleared), action, error: failure(failed) };
    }
    return { state, action, error: failure(failed) };
  }

  /**
   * A check-out that answers `{ certificate, activation, lease? }` (activate, borrow): the certificate
   * is verified and stored with `key` and `remember` (the machine's name and platform). Throws
   * `LicenseClientError` for a refusal, a certificate that does not verify, or a replayed one.
   */
  async checkOut(route: 'activate' | 'borrow', body: Record<string, unknown>, key: string, remember: Partial<LicenseState> = {}): Promise<{ state: LicenseState; activation: string }> {
    let state = await this.load();
    let answer = await postJson(this.config.fetch, this.config.endpoint(route), body, this.config.timeoutMs);
    if (answer.kind === 'ok' && (typeof answer.body.certificate !== 'string' || typeof answer.body.activation !== 'string')) {
      answer = invalidResponse('certificate or activation');
    }
    if (answer.kind !== 'ok') throw failure(answer);
    state = await this.syncRevocations(state, answer.body);
    const certificate = answer.body.certificate as string;
    const { result, lease } = await this.verifyReceived(state, certificate, parseAnswerLease(answer.body.lease));
    if (!isTrustedOutcome(result.outcome)) {
      // The server has recorded the activation: keep the key so deactivate() can free the seat.
      if (state.key !== key) await this.save({ ...state, key, certificate: null, lease: null, refusal: null, ...remember });
      throw untrusted(result.outcome);
    }
    if (this.isStale(state, result.payload)) throw staleError(result.payload, state.highestIssuedAt);
    const next = await this.save({ ...this.withCertificate(state, key, certificate, result.payload, lease), ...remember });
    return { state: next, activation: answer.body.activation as string };
  }

  /** When the heartbeat should validate next: time left until `refreshAfter` and the refresh interval; null when it should not run. */
  heartbeatPlan(state: LicenseState): { untilRefreshMs: number; intervalMs: number } | null {
    if (state.key === null || state.certificate === null || state.released) return null;
    const decoded = decodeCertificate(state.certificate);
    const { issuedAt, refreshAfter } = decoded.ok ? (decoded.payload as Record<string, unknown>) : {};
    if (!Number.isSafeInteger(issuedAt) || !Number.isSafeInteger(refreshAfter)) return null;
    const intervalMs = Math.max(1000, ((refreshAfter as number) - (issuedAt as number)) * 1000);
    const at = this.instant(state);
    const untilRefreshMs = state.lease === null ? (refreshAfter as number) * 1000 - at.wallMs : ((refreshAfter as number) - state.lease.issuedAt) * 1000 - at.elapsedMs;
    return { untilRefreshMs, intervalMs };
  }
}
