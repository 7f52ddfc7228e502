import { getText } from './client-http.js';
import type { ClientConfig } from './client-options.js';
import type { RevocationImport } from './client-types.js';
import type { RevocationList } from './revocation-list.js';
import type { LicenseState } from './storage.js';
import { verifyRevocationList } from './verify-revocation-list.js';

/** What taking a list into the state gives: the answer, and the state to store (null: store nothing). */
interface Considered {
  answer: RevocationImport;
  next: LicenseState | null;
}

/**
 * The client's side of RVL1: which verified list the stored state holds (verified once per text and
 * kept in memory, since a large list takes tens of milliseconds to check), whether a list may replace
 * it (rollback refused), and the online fetch when the server announces a newer `seq`.
 */
export class RevocationKeeper {
  readonly #config: ClientConfig;
  #cachedText: string | null = null;
  #cachedList: RevocationList | null = null;

  constructor(config: ClientConfig) {
    this.#config = config;
  }

  /** The verified list the state holds, or null (none, or the stored text no longer verifies with these keys). */
  async listOf(state: LicenseState): Promise<RevocationList | null> {
    const text = state.revocationList;
    if (text === null) return null;
    if (text === this.#cachedText) return this.#cachedList;
    const result = await this.#verify(text);
    this.#remember(text, result.outcome === 'valid' ? result.list : null);
    return this.#cachedList;
  }

  /** Whether `text` replaces the held list, with the rollback rule on `seq`. Never throws for the text. */
  async consider(state: LicenseState, text: unknown): Promise<Considered> {
    const trimmed = typeof text === 'string' ? text.trim() : text;
    const result = await this.#verify(trimmed);
    if (result.outcome !== 'valid') return { answer: { accepted: false, reason: result.outcome }, next: null };
    const { seq } = result.list;
    const held = state.revocationSeq ?? 0;
    if (seq < held) return { answer: { accepted: false, reason: 'older_seq' }, next: null };
    if (seq === held && state.revocationList !== null) return { answer: { accepted: true, reason: 'unchanged' }, next: null };
    this.#remember(trimmed as string, result.list);
    return { answer: { accepted: true, reason: null }, next: { ...state, revocationList: trimmed as string, revocationSeq: seq } };
  }

  /**
   * When a client API answer announces (`revocationListSeq`) a list newer than the one held, GETs the
   * product's current list and takes it as `importRevocationList` would. The state to store, or null
   * when nothing changed (no newer list announced, the fetch failed, or the list was refused): the
   * next answer that announces it tries again. Never throws.
   */
  async fetchIfNewer(state: LicenseState, announced: unknown): Promise<LicenseState | null> {
    if (!Number.isSafeInteger(announced) || (announced as number) <= (state.revocationSeq ?? 0)) return null;
    const text = await getText(this.#config.fetch, this.#config.revocationsUrl, this.#config.timeoutMs);
    return text === null ? null : (await this.consider(state, text)).next;
  }

  #verify(text: unknown) {
    return verifyRevocationList(text, { publicKeys: this.#config.publicKeys, product: this.#config.product });
  }

  #remember(text: string, list: RevocationList | null): void {
    this.#cachedText = text;
    this.#cachedList = list;
  }
}
