import type { ClientLicenseQuery, ClientLicenseRecords } from '@svc-licensing/license-engine';
import { clientLicensesOf, clientLicensesSql, clientLicensesValues } from './joined-reads.js';
import type { ClientRow } from './joined-reads.js';
import { SharedDocs } from './shared-docs.js';
import type { SqlValue } from './statement.js';

/** Runs one prepared statement autocommitted on the read pool (the store's `autocommit`). */
export type Autocommit = <R>(sql: string, values: readonly SqlValue[]) => Promise<R>;

interface Waiting {
  readonly query: ClientLicenseQuery;
  readonly resolve: (records: ClientLicenseRecords) => void;
  readonly reject: (error: unknown) => void;
}

/** Most calls in one statement: a prepared statement per size is kept on each connection. */
export const MAX_CLIENT_READS = 32;

/**
 * The `readClientLicense` calls of read-only units (validate's), gathered across units: the calls
 * made until the event loop has run the callbacks of its current turn (`setImmediate`) go to the
 * database as one autocommitted statement ({@link clientLicensesSql}), at most
 * {@link MAX_CLIENT_READS} each. Each call is still a read of what was committed when its
 * statement ran, after the call was made: a statement is sent only after every call in it was
 * made, so a call sees every write acknowledged before it (on Galera too: the statement waits for
 * the cluster's earlier commits, `wsrep_sync_wait`). Nothing is kept between statements but the
 * parsed documents of the records many calls share, by their text ({@link SharedDocs}).
 */
export class ClientLicenseReads {
  readonly #autocommit: Autocommit;
  readonly #shared = new SharedDocs();
  readonly #parseShared = <T>(text: string | null, overlay?: { key: string; apply: (value: T) => T }): T | null => this.#shared.parse<T>(text, overlay);
  #waiting: Waiting[] = [];
  #scheduled = false;

  constructor(autocommit: Autocommit) {
    this.#autocommit = autocommit;
  }

  read(query: ClientLicenseQuery): Promise<ClientLicenseRecords> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ query, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(this.#send);
    });
  }

  readonly #send = (): void => {
    this.#scheduled = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (let i = 0; i < waiting.length; i += MAX_CLIENT_READS) void this.#sendOne(waiting.slice(i, i + MAX_CLIENT_READS));
  };

  async #sendOne(calls: readonly Waiting[]): Promise<void> {
    try {
      const queries = calls.map((c) => c.query);
      const rows = await this.#autocommit<ClientRow[]>(clientLicensesSql(calls.length), clientLicensesValues(queries));
      const found = clientLicensesOf(rows, calls.length, this.#parseShared);
      calls.forEach((c, i) => c.resolve(found[i]!));
    } catch (error) {
      for (const c of calls) c.reject(error);
    }
  }
}
