import type {
  AccountRecord, ActivationRecord, Collection, CustomerRecord, LicenseRecord, NotificationDeliveryRecord, PlanRecord, ProductRecord, ProviderCustomerRecord,
  RecordMap, RevocationEntryRecord, SigningKeyRecord,
} from './records.js';

/**
 * The store port: everything the engine needs from storage.
 *
 * A store runs units of work (`transaction`): every read and write inside one either all
 * happens or none does. Adapters: memory (tests), embedded (unstorage + journal, one process),
 * MySQL/MariaDB (many processes). Every adapter must pass `testStore` (the conformance suite).
 */
export interface Store {
  /**
   * Runs `work` as one atomic unit. When `work` throws, nothing it wrote is kept and the error
   * is rethrown. An adapter may run `work` again after a deadlock or lock-wait timeout, so
   * `work` must have no side effects outside `tx`.
   *
   * `options.readOnly` (optional; adapters may ignore it) promises that `work` only reads and does
   * not change the records it gets, so an adapter may run it more cheaply (the embedded store hands
   * out shared, frozen records instead of copies): the MySQL adapter runs each read as its own autocommitted
   * statement (no locks, no transaction, no `COMMIT` round trip) and refuses writes. Each read
   * then sees committed data, though not necessarily one snapshot across reads.
   *
   * @example
   * ```ts
   * const plan = await store.transaction((tx) => tx.get('plans', planId), { readOnly: true });
   * ```
   */
  transaction<T>(work: (tx: StoreTx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Releases connections, timers and file handles. */
  close(): Promise<void>;
}

/** Options of one unit of work (see `Store.transaction`). */
export interface TransactionOptions {
  /**
   * `work` only reads, and leaves the records it reads unchanged. Adapters that honour it may run
   * the reads without a transaction (each sees committed data) and without locks, return shared
   * frozen records, and reject writes; adapters may also ignore it.
   */
  readOnly?: boolean;
  /**
   * True for a result of `work` that its caller throws away, running another unit in its place
   * (a read-only attempt that found something to write: the write unit reads again). A store that
   * holds a read-only unit's result until the records it read are durable may hand such a result
   * back at once; adapters may ignore it.
   */
  discarded?: (result: unknown) => boolean;
  /**
   * `work` may write, but never changes a record it got from a read (it writes new objects, built
   * by spreading what it read), so an adapter may hand it shared, deeply frozen records instead of
   * a private copy per read; a change to one throws (strict mode). Writes are copied as ever.
   * Validate's locked unit sets it (a heartbeat on schedule renews, and writes, every time);
   * adapters may ignore it (the memory store freezes its copies, so tests catch a mutation).
   */
  sharedReads?: boolean;
}

/** What {@link StoreTx.readClientLicense} looks up: a client API call's product, key and machine. */
export interface ClientLicenseQuery {
  productId: string;
  /** `hashLicenseKey` of the license key. */
  keyHash: string;
  fingerprint: string;
}

/** The records a client API call needs, as {@link StoreTx.readClientLicense} returns them. */
export interface ClientLicenseRecords {
  /** The product `productId`, or null. */
  product: ProductRecord | null;
  /** The license with `keyHash` (of whatever product), or null. */
  license: LicenseRecord | null;
  /** The license's plan and account (null without a license). */
  plan: PlanRecord | null;
  account: AccountRecord | null;
  /** The activation of the license for `fingerprint`, or null. */
  activation: ActivationRecord | null;
  /** The product's `active` signing key (the lowest id if several), or null. */
  signingKey: SigningKeyRecord | null;
}

/** What {@link StoreTx.readProviderCustomer} looks up: a payment provider's customer in an integration. */
export interface ProviderCustomerQuery {
  integrationId: string;
  providerCustomerId: string;
  /** The integration's account, whose customer with the mapping's e-mail is returned. */
  accountId: string;
}

/** A provider customer's mapping and the account's customer with its e-mail. */
export interface ProviderCustomerRecords {
  /** `findOne('providerCustomers', { integrationId, providerCustomerId })`, or null. */
  mapping: ProviderCustomerRecord | null;
  /** `findOne('customers', { accountId, email: mapping.email })`; null without a mapping. */
  customer: CustomerRecord | null;
}

/** Equality filter on a collection's indexed fields (see `storeSchema`). */
export type Where<C extends Collection> = Partial<RecordMap[C]>;

export interface ReadOptions {
  /**
   * Lock the row(s) read until the transaction ends (`SELECT ... FOR UPDATE`), so concurrent
   * transactions touching the same record run one after the other. Adapters that serialize
   * whole transactions may treat this as a no-op.
   */
  lock?: boolean;
}

/** Options of a write ({@link StoreTx.insert}, {@link StoreTx.update}, {@link StoreTx.delete}). */
export interface WriteOptions {
  /**
   * The caller needs this write's outcome only when the unit of work ends. An adapter may hold
   * the write and send it with the unit's next statement or with its commit, so that several
   * writes cost one round trip (the MySQL adapter does; the others write at once). Reads in the
   * same unit still see it. A failure of a held write (a unique-key clash, a missing record to
   * update) then rejects a later call of the unit or `transaction` itself, never this call, and
   * nothing more of the unit runs: use it only where the caller would not catch the error anyway,
   * never for an insert-first claim.
   */
  defer?: boolean;
  /**
   * The caller built this record for this write and neither changes nor keeps it afterwards
   * (the engine's queued notifications): an adapter holding records in memory may keep it as it
   * is instead of copying it. Without it, an adapter must not keep the caller's object.
   */
  owned?: boolean;
}

export interface PageQuery<C extends Collection> {
  where?: Where<C>;
  /** Case-insensitive substring match of `text` against any of `fields` (a `q` filter). */
  search?: { text: string; fields: readonly (keyof RecordMap[C] & string)[] };
  /** The `nextCursor` of the previous page, as returned by `page`. */
  cursor?: string | null;
  /** Page size; the vendor API uses 50. */
  limit: number;
  /**
   * `desc`: newest first (by `id`, which sorts by creation). `asc`: oldest first.
   * A cursor stays correct while new records are inserted.
   */
  order: 'asc' | 'desc';
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** The operations available inside a unit of work. */
export interface StoreTx {
  get<C extends Collection>(collection: C, id: string, options?: ReadOptions): Promise<RecordMap[C] | null>;
  /** The one record matching `where` (a unique index), or null. */
  findOne<C extends Collection>(collection: C, where: Where<C>, options?: ReadOptions): Promise<RecordMap[C] | null>;
  /** Every record matching `where`, oldest first. For small sets only (a license's activations). */
  findMany<C extends Collection>(collection: C, where: Where<C>, options?: ReadOptions): Promise<RecordMap[C][]>;
  count<C extends Collection>(collection: C, where: Where<C>): Promise<number>;
  page<C extends Collection>(collection: C, query: PageQuery<C>): Promise<Page<RecordMap[C]>>;
  /** Inserts a new record. Rejects with a `StoreConflictError` on a duplicate id or unique key. */
  insert<C extends Collection>(collection: C, record: RecordMap[C], options?: WriteOptions): Promise<void>;
  /** Replaces the record with the same id. Rejects with a `StoreConflictError` on a unique key clash. */
  update<C extends Collection>(collection: C, record: RecordMap[C], options?: WriteOptions): Promise<void>;
  /**
   * Optional: replaces `expected` by `record` (the same id) only while the stored record is still
   * exactly `expected`, as read earlier (a compare and set: one conditional statement on a SQL
   * store, without a lock taken beforehand). When it is not (changed or deleted meanwhile), the
   * unit fails with a `StoreConflictError` on index `unchanged` and keeps nothing, so `transact`
   * runs it again and the rerun reads what changed. Held like `{ defer: true }`. The engine uses it
   * for a floating lease's renewal without the license row lock (docs/floating-seats.md) and for
   * the lapses a check-out records; without it, it takes the locked path.
   *
   * @example
   * ```ts
   * if (tx.updateIfUnchanged) await tx.updateIfUnchanged('activations', read, { ...read, lastSeenAt: at });
   * ```
   */
  updateIfUnchanged?<C extends Collection>(collection: C, expected: RecordMap[C], record: RecordMap[C]): Promise<void>;
  /** Deletes by id; deleting a missing record is not an error. */
  delete<C extends Collection>(collection: C, id: string, options?: WriteOptions): Promise<void>;
  /**
   * Optional: the records with `ids` of one collection in a single read (a SQL adapter selects
   * them in one statement), in the order of `ids`, null for a missing one: exactly what `get`
   * would return for each. With `lock`, every row found is locked as `get` locks it (a SQL adapter
   * locks them in id order). The engine uses it to record a batch of notification attempts, and
   * falls back to one `get` per id when it is absent.
   *
   * @example
   * ```ts
   * const [a, b] = tx.getMany ? await tx.getMany('notificationDeliveries', ['msg_a', 'msg_b'], { lock: true }) : [];
   * ```
   */
  getMany?<C extends Collection>(collection: C, ids: readonly string[], options?: ReadOptions): Promise<(RecordMap[C] | null)[]>;
  /**
   * Optional: the records of one client API call in a single read (a SQL adapter joins them in
   * one statement), exactly what `get`/`findOne` would return for each: the product by id, the
   * license by `keyHash`, its plan, account and activation for `fingerprint`, and the product's
   * active signing key. Reads are not locked. The engine uses it for `validate` when present and
   * falls back to those individual reads when not.
   *
   * @example
   * ```ts
   * const found = tx.readClientLicense
   *   ? await tx.readClientLicense({ productId, keyHash, fingerprint })
   *   : null; // else read each record with get/findOne
   * ```
   */
  readClientLicense?(query: ClientLicenseQuery): Promise<ClientLicenseRecords>;
  /**
   * Optional: `readClientLicense` in a unit that writes, with the license row locked for the rest
   * of the unit as `findOne('licenses', { keyHash }, { lock: true })` locks it (the other records
   * are read unlocked, as the engine's separate reads do). Only a store whose one read can take
   * that lock may have it: a store that runs units one at a time (locks are no-ops there) answers
   * it with its `readClientLicense`. The engine uses it for the locked lookup of `validate`'s write
   * unit and `deactivate` (a renewing heartbeat: one read instead of six), and falls back to the
   * separate reads when it is absent.
   *
   * @example
   * ```ts
   * const found = await tx.readClientLicenseLocked?.({ productId, keyHash, fingerprint });
   * ```
   */
  readClientLicenseLocked?(query: ClientLicenseQuery): Promise<ClientLicenseRecords>;
  /**
   * Optional: a provider customer's mapping and the customer it maps to in a single read (a SQL
   * adapter joins them in one statement; the second read depends on the first's e-mail), exactly
   * what the two `findOne` calls would return. Reads are not locked. The engine uses it for the
   * first reads of a purchase that names its customer by provider ID only, and falls back to the
   * two reads when it is absent.
   *
   * @example
   * ```ts
   * const { mapping, customer } = await tx.readProviderCustomer({ integrationId, providerCustomerId: 'ctm_01', accountId });
   * ```
   */
  readProviderCustomer?(query: ProviderCustomerQuery): Promise<ProviderCustomerRecords>;
  /**
   * Optional: the plan and product of the license `licenseId` as stored, found by the license's ID
   * alone (unlocked; null when missing), so they can be asked for in the same turn as the license's
   * read: one round trip on a SQL store instead of two. Used for a status change's answer.
   *
   * @example
   * ```ts
   * const [license, parents] = await Promise.all([tx.get('licenses', id, { lock: true }), tx.readLicenseParents?.(id)]);
   * ```
   */
  readLicenseParents?(licenseId: string): Promise<{ plan: PlanRecord | null; product: ProductRecord | null }>;
  /**
   * Optional: writes a product's revocation entry (inserted, or replacing the entry with its id) and
   * moves the product's list to its next `seq` in one go, without reading either record first:
   * `revocationSeq` becomes its value plus 1 (0 when absent) and `revocationsAt` the larger of its
   * value and `at` (Unix seconds). Whatever the product's list position is kept in stays locked
   * from its write to the unit's end, so concurrent changes of one product each take a `seq` of
   * their own; the store chooses where in the unit's writes it goes (a SQL store may put it last). Held
   * like a deferred write (`{ defer: true }`); a missing product fails the unit. The engine uses it
   * for a revoke, refund, chargeback or freed machine when present (a SQL adapter saves the round
   * trip that locks the product and reads the entry), and falls back to those reads and writes.
   *
   * @example
   * ```ts
   * if (tx.recordRevocationEntry) await tx.recordRevocationEntry(entry, Math.floor(Date.now() / 1000));
   * ```
   */
  recordRevocationEntry?(entry: RevocationEntryRecord, at: number): Promise<void>;
  /**
   * The notification deliveries due at `now` (`dueAt <= now`), soonest first, at most `limit`, each
   * locked for the rest of the unit. A delivery another unit holds locked is skipped, not waited
   * for, so concurrent claimers (in any number of processes) each get other deliveries; a store
   * that runs units one at a time needs no lock.
   *
   * @example
   * ```ts
   * const due = await tx.dueDeliveries({ now: Date.now(), limit: 16 });
   * for (const d of due) await tx.update('notificationDeliveries', { ...d, dueAt: Date.now() + 60_000, claim }, { defer: true });
   * ```
   */
  dueDeliveries(query: { now: number; limit: number }): Promise<NotificationDeliveryRecord[]>;
}

/** Thrown by an adapter when an insert or update breaks a unique key. */
export class StoreConflictError extends Error {
  readonly code = 'store_conflict' as const;
  constructor(
    readonly collection: string,
    readonly index: string,
  ) {
    super(`duplicate ${index} in ${collection}`);
    this.name = 'StoreConflictError';
  }

  /** Works across module copies (ESM and CJS builds loaded together), unlike `instanceof`. */
  static is(error: unknown): error is StoreConflictError {
    return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'store_conflict';
  }
}

export { storeSchema } from './store-schema.js';
