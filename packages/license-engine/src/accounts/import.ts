import { base64urlDecode, base64urlEncode, hashLicenseKey } from '@svc-licensing/cert-format';
import { publicKeyFromSeed } from '@svc-licensing/cert-format/sign';
import { LicensingError } from '../_internal/errors.js';
import type { AccountRecord, Collection, RecordMap } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { ACCOUNT_EXPORT_FORMAT } from './export.js';
import { insertApiKey } from './api-keys.js';
import type { SigningKeyExport } from '../catalog/signing-keys.js';
import type { EngineContext } from '../_internal/context.js';
import { now, transact } from '../_internal/context.js';
import type { AccountView, ApiKeyCreatedView } from '../_internal/views.js';
import { accountView } from '../_internal/record-views.js';
import { sealLicenseKey } from '../_internal/sealed.js';
import { OPERATOR_ACTOR } from '../_internal/audit-records.js';

/**
 * One value of an account export as a streaming reader hands it over: a top-level field
 * (`format`, `account`, ...) with its value, or one element of a list section (`licenses`, ...).
 */
export interface AccountExportItem {
  section: string;
  value: unknown;
}

/** What {@link importAccount} reads: the export (opened again if the store re-runs the unit) and the key exports. */
export interface AccountImportInput {
  /**
   * Opens the export document and yields its items in document order; it must reject when the
   * document is not complete (cut short), so the unit of work rolls back.
   */
  open(): AsyncIterable<AccountExportItem>;
  /** One `svc-signing-keys-v1` document per product of the account. */
  keys: readonly SigningKeyExport[];
}

/** The outcome: the account, a new API key (the exported ones have no secret to restore) and the record counts. */
export interface AccountImportResult {
  account: AccountView;
  apiKey: ApiKeyCreatedView;
  counts: Record<string, number>;
}

function fail(message: string): never {
  throw new LicensingError('invalid_request', `account import: ${message}`);
}

type Row = Record<string, unknown> & { id: string };

const isObject = (value: unknown): value is Row =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { id?: unknown }).id === 'string';

/** Sections read into the store, in the order the export writes them, with the ID prefix of their records. */
const SECTIONS: Record<string, { collection: Collection; prefix: string; parents: Record<string, string> } | null> = {
  apiKeys: null, // names and prefixes only: nothing to authenticate with
  members: { collection: 'members', prefix: 'mem_', parents: {} },
  products: { collection: 'products', prefix: 'prd_', parents: {} },
  signingKeys: { collection: 'signingKeys', prefix: 'sgk_', parents: { productId: 'products' } },
  plans: { collection: 'plans', prefix: 'pln_', parents: { productId: 'products' } },
  customers: { collection: 'customers', prefix: 'cus_', parents: {} },
  integrations: { collection: 'integrations', prefix: 'int_', parents: { productId: 'products' } },
  providerCustomers: { collection: 'providerCustomers', prefix: 'pcu_', parents: {} },
  licenses: { collection: 'licenses', prefix: 'lic_', parents: { productId: 'products', planId: 'plans', customerId: 'customers' } },
  activations: { collection: 'activations', prefix: 'act_', parents: { licenseId: 'licenses' } },
  // Absent from documents exported before revocation lists: the imported products then start without entries.
  revocationEntries: { collection: 'revocationEntries', prefix: 'rve_', parents: { productId: 'products', licenseId: 'licenses' } },
  processedEvents: { collection: 'processedEvents', prefix: 'pev_', parents: {} },
  auditEvents: { collection: 'auditEvents', prefix: 'evt_', parents: {} },
};
const ORDER = Object.keys(SECTIONS);

/** The private seed of each exported key by product and kid, checked against its public key. */
function keyring(keys: readonly SigningKeyExport[]): Map<string, Map<string, { seed: Uint8Array; publicKey: string }>> {
  const byProduct = new Map<string, Map<string, { seed: Uint8Array; publicKey: string }>>();
  for (const doc of keys) {
    if (doc?.format !== 'svc-signing-keys-v1' || typeof doc.product?.id !== 'string' || !Array.isArray(doc.keys)) {
      fail('a key export is not an svc-signing-keys-v1 document');
    }
    if (byProduct.has(doc.product.id)) fail(`two key exports for product ${doc.product.id}`);
    const kids = new Map<string, { seed: Uint8Array; publicKey: string }>();
    for (const key of doc.keys) {
      const seed = (typeof key.privateKey === 'string' ? base64urlDecode(key.privateKey) : undefined) ?? new Uint8Array();
      if (seed.length !== 32 || base64urlEncode(publicKeyFromSeed(seed)) !== key.publicKey) {
        fail(`key ${key.kid} of product ${doc.product.id}: the private key does not match its public key`);
      }
      kids.set(key.kid, { seed, publicKey: key.publicKey });
    }
    byProduct.set(doc.product.id, kids);
  }
  return byProduct;
}

/**
 * Creates an account from an `svc-account-export-v1` document and the key exports of its products
 * (`svc account import`), keeping every ID, so applications keep their product IDs, license keys,
 * activations and signing `kid`s. One unit of work: either the whole account is written or nothing.
 * Secrets that are not in an export start empty (integration webhook secrets and provider API keys
 * must be set again; API keys are replaced by one new key); the sender domain is not imported (its
 * DKIM key never leaves the instance: claim it again). `conflict` when the account or any unique
 * value (a license key) already exists here; `invalid_request` for a document that is not a
 * complete export, a record whose parent is missing, or a key export that does not match.
 */
export async function importAccount(ctx: EngineContext, input: AccountImportInput): Promise<AccountImportResult> {
  const ring = keyring(input.keys);
  return transact(ctx, async (tx) => {
    let format: unknown;
    let exportId = '';
    let account: AccountRecord | null = null;
    let done = 0; // index in ORDER of the last section started
    const seen = new Map<string, Set<string>>(ORDER.map((s) => [s, new Set<string>()]));
    const counts: Record<string, number> = Object.fromEntries(ORDER.map((s) => [s, 0]));
    const usedKeys = new Set<string>();

    for await (const { section, value } of input.open()) {
      if (section === 'format') {
        format = value;
        if (format !== ACCOUNT_EXPORT_FORMAT) fail(`format must be ${ACCOUNT_EXPORT_FORMAT}, got ${JSON.stringify(format)}`);
        continue;
      }
      if (format !== ACCOUNT_EXPORT_FORMAT) fail('the document must start with its format');
      if (section === 'exportedAt' || section === 'senderDomain') continue;
      if (section === 'exportId') {
        exportId = typeof value === 'string' ? value : fail('exportId must be a string');
        continue;
      }
      if (section === 'account') {
        account = await insertAccount(tx, value);
        continue;
      }
      const spec = SECTIONS[section];
      if (spec === undefined) fail(`unknown section ${JSON.stringify(section)}`);
      if (!account) fail(`${section} before the account`);
      const index = ORDER.indexOf(section);
      if (index < done) fail(`${section} after a later section`);
      done = index;
      if (!spec) continue;
      if (!isObject(value) || !value.id.startsWith(spec.prefix)) fail(`${section}: every item must be a record whose id starts with ${spec.prefix}`);
      if (value.accountId !== account.id) fail(`${section} ${value.id} belongs to another account`);
      for (const [field, parent] of Object.entries(spec.parents)) {
        if (!seen.get(parent)!.has(value[field] as string)) fail(`${section} ${value.id}: its ${field} ${String(value[field])} is not in the export`);
      }
      const record = restore(ctx, section, value, ring, usedKeys);
      seen.get(section)!.add(value.id);
      await tx.insert(spec.collection, record as never);
      counts[section]! += 1;
    }
    if (!account) fail('the document has no account');
    for (const [productId, kids] of ring) {
      if (!seen.get('products')!.has(productId)) fail(`the key export of product ${productId} is for a product not in the account export`);
      for (const kid of kids.keys()) if (!usedKeys.has(`${productId}/${kid}`)) fail(`key ${kid} of product ${productId} is not in the account export`);
    }
    const apiKey = await insertApiKey(ctx, tx, account.id, 'imported', OPERATOR_ACTOR);
    await tx.insert('auditEvents', {
      id: ctx.ids.next('evt'), accountId: account.id, type: 'account.imported', licenseId: null,
      data: { format: ACCOUNT_EXPORT_FORMAT, from: exportId }, createdAt: now(ctx), actor: OPERATOR_ACTOR, actorKind: 'operator',
    });
    return { account: accountView(account), apiKey, counts };
  });
}

async function insertAccount(tx: StoreTx, value: unknown): Promise<AccountRecord> {
  if (!isObject(value) || !value.id.startsWith('acc_') || typeof value.ownerEmail !== 'string' || typeof value.name !== 'string') {
    fail('account must be an account record');
  }
  // Webhook endpoints are not exported: the copy starts without subscriptions.
  const { webhookSubscriptions: _none, ...account } = value as unknown as AccountRecord;
  if (await tx.get('accounts', account.id)) throw new LicensingError('conflict', `account import: account ${account.id} already exists here`);
  await tx.insert('accounts', account);
  return account;
}

/** The stored record of an exported one: secrets put back from the key exports, or emptied. */
function restore(
  ctx: EngineContext,
  section: string,
  value: Row,
  ring: ReturnType<typeof keyring>,
  usedKeys: Set<string>,
): RecordMap[Collection] {
  switch (section) {
    case 'signingKeys': {
      const { productId, kid, publicKey } = value as unknown as { productId: string; kid: string; publicKey: string };
      const key = ring.get(productId)?.get(kid);
      if (!key) fail(`no private key for ${kid} of product ${productId}: give that product's key export with --keys`);
      if (key.publicKey !== publicKey) fail(`key ${kid} of product ${productId}: the key export's public key differs from the account export's`);
      usedKeys.add(`${productId}/${kid}`);
      return { ...(value as object), privateKey: ctx.secrets.encrypt(key.seed, { purpose: 'signing-key', record: value.id }) } as RecordMap['signingKeys'];
    }
    case 'licenses': {
      const { key, ...rest } = value as Row & { key?: unknown; keyHash?: unknown };
      if (typeof key !== 'string' || hashLicenseKey(key) !== rest.keyHash) fail(`license ${value.id}: its key does not match its keyHash`);
      return { ...rest, keyEncrypted: sealLicenseKey(ctx, value.id, key as string) } as unknown as RecordMap['licenses'];
    }
    case 'integrations': {
      const { hasWebhookSecret: _secret, hasApiKey: _apiKey, ...rest } = value;
      return { ...rest, webhookSecret: null, apiKey: null } as unknown as RecordMap['integrations'];
    }
    default:
      return value as unknown as RecordMap[Collection];
  }
}
