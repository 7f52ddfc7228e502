import type {
  AccountRecord, Actor, ActivationRecord, ApiKeyRecord, AuditEventRecord, Collection, CustomerRecord, IntegrationRecord, LicenseRecord, MemberRecord,
  PlanRecord, ProcessedEventRecord, ProductRecord, ProviderCustomerRecord, RecordMap, RevocationEntryRecord, SenderDomainRecord, SigningKeyRecord,
  Timestamp,
} from '../_internal/records.js';
import { loadAccount } from '../_internal/account.js';
import type { EngineContext } from '../_internal/context.js';
import { now, transact } from '../_internal/context.js';
import { openLicenseKey } from '../_internal/sealed.js';
import { queueNotifications } from '../_internal/notify.js';
import { accountView } from '../_internal/record-views.js';

/**
 * Format identifier of the account export document.
 *
 * @example
 * ```ts
 * ACCOUNT_EXPORT_FORMAT; // 'svc-account-export-v1'
 * ```
 */
export const ACCOUNT_EXPORT_FORMAT = 'svc-account-export-v1';

/** Records read per unit of work while streaming: memory holds one page per collection at a time. */
export const ACCOUNT_EXPORT_PAGE_SIZE = 2000;

/** A license as exported: the stored record with its key in clear instead of encrypted. */
export type ExportedLicense = Omit<LicenseRecord, 'keyEncrypted'> & { key: string };
/** A signing key as exported: public part only (private keys come from the owner's key export). */
export type ExportedSigningKey = Omit<SigningKeyRecord, 'privateKey'>;
/** An integration as exported: whether secrets are set, never their values. */
export type ExportedIntegration = Omit<IntegrationRecord, 'webhookSecret' | 'apiKey'> & { hasWebhookSecret: boolean; hasApiKey: boolean };
/** An API key as exported: name and prefix, never the hash. */
export type ExportedApiKey = Omit<ApiKeyRecord, 'hash' | 'createdBy'> & { createdBy: Actor | null };
/** The sender domain as exported: without its DKIM private key. */
export type ExportedSenderDomain = Omit<SenderDomainRecord, 'dkimPrivateKey'>;

/**
 * The `svc-account-export-v1` document: every record of the account as stored, in this order
 * (parents before children, so an import can write it front to back), minus every secret and
 * what is transient (sessions, sign-in links, e-mail reservations, counters).
 */
export interface AccountExportDocument {
  format: typeof ACCOUNT_EXPORT_FORMAT;
  exportedAt: Timestamp;
  /** The `account.exported` audit event of this export; records created after it are not in the document. */
  exportId: string;
  account: AccountRecord;
  senderDomain: ExportedSenderDomain | null;
  apiKeys: ExportedApiKey[];
  /** Invited members (the owner is `account.ownerEmail`); their sessions are not exported. */
  members: MemberRecord[];
  products: ProductRecord[];
  signingKeys: ExportedSigningKey[];
  plans: PlanRecord[];
  customers: CustomerRecord[];
  integrations: ExportedIntegration[];
  providerCustomers: ProviderCustomerRecord[];
  licenses: ExportedLicense[];
  activations: ActivationRecord[];
  /**
   * The entries of the products' revocation lists (RVL1), so an imported product's next list still
   * blocks what its lists blocked here. Absent in documents exported before they were added.
   */
  revocationEntries: RevocationEntryRecord[];
  processedEvents: ProcessedEventRecord[];
  auditEvents: AuditEventRecord[];
}

/** The sections that are lists, in document order, with their collection. */
const LISTS = [
  'apiKeys', 'members', 'products', 'signingKeys', 'plans', 'customers', 'integrations', 'providerCustomers', 'licenses', 'activations',
  'revocationEntries', 'processedEvents', 'auditEvents',
] as const satisfies readonly (keyof AccountExportDocument & Collection)[];

/** An export in progress: its audit event and the document's text, produced page by page as it is read. */
export interface AccountExport {
  exportId: string;
  exportedAt: Timestamp;
  /** The JSON text of the document in pieces (one per record or less); read it once. */
  chunks: AsyncIterable<string>;
}

/** The time-ordered part of an ID: records are compared with the export's cutoff by it. */
const suffix = (id: string): string => id.slice(id.indexOf('_') + 1);

/**
 * The ID a record is compared with the cutoff by: its own, or for a revocation entry (whose ID is a
 * hash of its subject, in no time order) its license's, so an entry is exported with its license.
 */
const timeIdOf = (collection: Collection, record: { id: string }): string =>
  collection === 'revocationEntries' ? (record as RevocationEntryRecord).licenseId : record.id;

/**
 * `POST /account/export` (owner): writes the `account.exported` audit event, then returns the
 * document as a stream of JSON text. Each page is its own unit of work (an export never holds the
 * store), and records created after the export began (an ID newer than its audit event) are left
 * out, so every record in the document has its parents in it; records changed during the export
 * appear as read. Secrets are never in it: license keys are (the vendor's own data), private keys,
 * webhook secrets, provider API keys, API key hashes and the DKIM key are not.
 */
export async function exportAccount(ctx: EngineContext, accountId: string, options: { pageSize?: number } = {}): Promise<AccountExport> {
  const pageSize = options.pageSize ?? ACCOUNT_EXPORT_PAGE_SIZE;
  const exportedAt = now(ctx);
  const exportId = ctx.ids.next('evt');
  await transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    const event: AuditEventRecord = {
      id: exportId, accountId, type: 'account.exported', licenseId: null,
      data: { format: ACCOUNT_EXPORT_FORMAT, exportId }, createdAt: exportedAt,
    };
    await tx.insert('auditEvents', event);
    // The event's id is the export's cutoff, so it is written here; its notifications go like any other's.
    await queueNotifications(ctx, tx, event, { account, view: () => accountView(account) });
  });
  const cutoff = suffix(exportId);

  /** The collection's records up to the cutoff, one page (oldest first) at a time. */
  async function* pages<C extends Collection>(collection: C): AsyncGenerator<RecordMap[C][]> {
    let cursor: string | null = null;
    for (;;) {
      // Not `readOnly`: the embedded store keeps a frozen copy of every record a read-only unit
      // returns for as long as the record lives, which would grow memory with the account.
      const page = await transact(ctx, (tx) => tx.page(collection, { where: { accountId } as never, cursor, limit: pageSize, order: 'asc' }));
      const kept = page.data.filter((record) => suffix(timeIdOf(collection, record)) <= cutoff);
      if (kept.length > 0) yield kept;
      // Ascending order: once one record is newer than the cutoff, every later one is too (not so
      // for revocation entries, in the order of their hashed IDs: those are all read).
      if (page.nextCursor === null || (collection !== 'revocationEntries' && kept.length < page.data.length)) return;
      cursor = page.nextCursor;
    }
  }

  const shape: { [K in (typeof LISTS)[number]]: (record: RecordMap[K]) => unknown } = {
    apiKeys: ({ hash: _hash, ...rest }) => ({ ...rest, createdBy: rest.createdBy ?? null }),
    members: (r) => r,
    products: (r) => r,
    signingKeys: ({ privateKey: _privateKey, ...rest }) => rest,
    plans: (r) => r,
    customers: (r) => r,
    integrations: ({ webhookSecret, apiKey, ...rest }) => ({ ...rest, hasWebhookSecret: webhookSecret !== null, hasApiKey: apiKey !== null }),
    providerCustomers: (r) => r,
    licenses: ({ keyEncrypted, ...rest }) => ({ ...rest, key: openLicenseKey(ctx, { id: rest.id, keyEncrypted }) }),
    activations: (r) => r,
    revocationEntries: (r) => r,
    processedEvents: (r) => r,
    auditEvents: (r) => r,
  };

  async function* chunks(): AsyncGenerator<string> {
    const head = await transact(ctx, async (tx) => {
      // Webhook endpoints are not exported, nor the account's list of them.
      const { webhookSubscriptions: _endpoints, ...account } = await loadAccount(tx, accountId);
      const domain = await tx.findOne('senderDomains', { accountId });
      const senderDomain = domain ? (({ dkimPrivateKey: _key, ...rest }) => rest)(domain) : null;
      return { account, senderDomain };
    });
    yield `{"format":${JSON.stringify(ACCOUNT_EXPORT_FORMAT)},"exportedAt":${JSON.stringify(exportedAt)},"exportId":${JSON.stringify(exportId)},\n`;
    yield `"account":${JSON.stringify(head.account)},\n"senderDomain":${JSON.stringify(head.senderDomain)}`;
    for (const section of LISTS) {
      yield `,\n${JSON.stringify(section)}:[`;
      const toJson = (record: unknown) => JSON.stringify((shape[section] as (r: unknown) => unknown)(record));
      let first = true;
      for await (const page of pages(section)) {
        yield `${first ? '\n' : ',\n'}${page.map(toJson).join(',\n')}`;
        first = false;
      }
      yield ']';
    }
    yield '\n}\n';
  }

  return { exportId, exportedAt, chunks: chunks() };
}
