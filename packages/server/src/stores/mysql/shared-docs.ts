/** Most documents kept; past it the memo starts over (a product's few shared records refill it at once). */
const MAX_SHARED_DOCS = 2048;

/**
 * Parsed documents of the records that many client calls read alike (a product, its active
 * signing key, a plan, an account), keyed by their exact text as the statement returned it. A
 * validate's joined read returns all of them every time, and parsing them again was about 4% of
 * the server's CPU per validate on MariaDB. Keyed by the text, never by the id: each read still
 * gets what the database holds now (a changed record is a different text), so nothing here can
 * outlive a change. The values are frozen, deeply, because every call that reads the same text
 * gets the same object: a caller that changed one would change it for the others, and instead it
 * fails at once. Only read-only units use it.
 */
export class SharedDocs {
  readonly #parsed = new Map<string, unknown>();

  /**
   * The parsed, frozen document of `text` (null for SQL NULL). With `overlay`, the document as
   * `overlay.apply` completes it from other columns of the row (before it is frozen), kept by its
   * text and `overlay.key` (those columns' values).
   */
  parse<T>(text: string | null, overlay?: { key: string; apply: (value: T) => T }): T | null {
    if (text === null) return null;
    const key = overlay ? `${text}\u0000${overlay.key}` : text;
    let value = this.#parsed.get(key);
    if (value === undefined) {
      const parsed = JSON.parse(text) as T;
      value = deepFreeze(overlay ? overlay.apply(parsed) : parsed);
      if (this.#parsed.size >= MAX_SHARED_DOCS) this.#parsed.clear();
      this.#parsed.set(key, value);
    }
    return value as T;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
