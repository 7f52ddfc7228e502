import { base64urlEncode } from '@svc-licensing/cert-format';
import { publicKeyFromSeed, seedToPkcs8 } from '@svc-licensing/cert-format/sign';
import { LicensingError } from '../_internal/errors.js';
import type { Actor, ProductRecord, SigningKeyRecord, SigningKeyStatus, Timestamp } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { audit } from '../_internal/audit.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, transact } from '../_internal/context.js';
import { spendHourlyBudget } from '../_internal/budget.js';
import type { ListView, SigningKeyView } from '../_internal/views.js';
import { productView, signingKeyView } from '../_internal/record-views.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';
import { together } from '../_internal/together.js';
import { bumpRevocationSeq } from '../_internal/revocations.js';

/** Creates key `k<seq>` from 32 random bytes; the seed is stored only encrypted. */
export async function insertSigningKey(
  ctx: EngineContext,
  tx: StoreTx,
  product: ProductRecord,
  seq: number,
  status: Extract<SigningKeyStatus, 'pending' | 'active'>,
): Promise<SigningKeyRecord> {
  const seed = ctx.random.bytes(32).slice(0, 32);
  const at = now(ctx);
  const id = ctx.ids.next('sgk');
  const record: SigningKeyRecord = {
    id,
    accountId: product.accountId,
    productId: product.id,
    kid: `k${seq}`,
    seq,
    publicKey: base64urlEncode(publicKeyFromSeed(seed)),
    privateKey: ctx.secrets.encrypt(seed, { purpose: 'signing-key', record: id }),
    status,
    createdAt: at,
    activatedAt: status === 'active' ? at : null,
  };
  seed.fill(0);
  await tx.insert('signingKeys', record);
  return record;
}

/** `GET /products/{id}/keys`: oldest first. */
export async function listSigningKeys(
  ctx: EngineContext,
  accountId: string,
  productId: string,
  options: { cursor?: string | null } = {},
): Promise<ListView<SigningKeyView>> {
  const scope = ['signingKeys', accountId, productId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    await owned(tx, 'products', accountId, productId, 'product');
    const page = await tx.page('signingKeys', { where: { productId }, cursor, limit: 50, order: 'asc' });
    return { data: page.data.map(signingKeyView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}

/** `POST /products/{id}/keys`: the next key, pending (published, signs nothing); `conflict` if one is pending. */
export async function createSigningKey(ctx: EngineContext, accountId: string, productId: string): Promise<SigningKeyView> {
  return transact(ctx, async (tx) => {
    const [product, account] = await together([owned(tx, 'products', accountId, productId, 'product', true), tx.get('accounts', accountId)]);
    const keys = await tx.findMany('signingKeys', { productId }, { lock: true });
    if (keys.some((k) => k.status === 'pending')) throw new LicensingError('conflict', 'a pending signing key already exists; activate it first');
    const seq = Math.max(0, ...keys.map((k) => k.seq)) + 1;
    const key = await insertSigningKey(ctx, tx, product, seq, 'pending');
    await audit(ctx, tx, { accountId, type: 'signing_key.created', licenseId: null, data: { product: productId, kid: key.kid }, account, view: () => signingKeyView(key) });
    return signingKeyView(key);
  });
}

/**
 * `POST /products/{id}/keys/{kid}/activate`: a pending key becomes active and the active one
 * retired; the active key is returned unchanged (idempotent); a retired key is `conflict`.
 */
export async function activateSigningKey(ctx: EngineContext, accountId: string, productId: string, kid: string): Promise<SigningKeyView> {
  return transact(ctx, async (tx) => {
    const [product, account] = await together([owned(tx, 'products', accountId, productId, 'product', true), tx.get('accounts', accountId)]);
    const keys = await tx.findMany('signingKeys', { productId }, { lock: true });
    const key = keys.find((k) => k.kid === kid);
    if (!key) throw new LicensingError('not_found', `signing key ${String(kid)} not found`);
    if (key.status === 'active') return signingKeyView(key);
    if (key.status === 'retired') throw new LicensingError('conflict', `signing key ${kid} is retired and never signs again`);
    const at = now(ctx);
    const previous = keys.find((k) => k.status === 'active') ?? null;
    if (previous) await tx.update('signingKeys', { ...previous, status: 'retired' });
    const activated: SigningKeyRecord = { ...key, status: 'active', activatedAt: at };
    await tx.update('signingKeys', activated);
    // The revocation list is signed again with the new key, under the next seq (once it has one).
    if ((product.revocationSeq ?? 0) > 0) await bumpRevocationSeq(ctx, tx, product);
    await audit(ctx, tx, {
      accountId,
      type: 'signing_key.rotated',
      licenseId: null,
      data: { product: productId, kid, retiredKid: previous?.kid ?? null },
      account,
      view: () => signingKeyView(activated),
    });
    return signingKeyView(activated);
  });
}

/** The owner-only export document (`svc-signing-keys-v1`): every key with its private seed. */
export interface SigningKeyExport {
  format: 'svc-signing-keys-v1';
  exportedAt: Timestamp;
  product: { id: string; name: string; keyPrefix: string };
  certificateFormat: 'CRT1';
  keys: Array<{
    kid: string;
    status: SigningKeyStatus;
    publicKey: string;
    /** base64url of the raw 32-byte seed. */
    privateKey: string;
    /** base64 of the PKCS#8 DER. */
    privateKeyPkcs8: string;
    createdAt: Timestamp;
    activatedAt: Timestamp | null;
  }>;
}

/**
 * Export budget per account and hour (spec Limits); the 11th export within an hour is `rate_limited`.
 *
 * @example
 * ```ts
 * EXPORTS_PER_HOUR; // 10
 * ```
 */
export const EXPORTS_PER_HOUR = 10;

/** Exports every key of the product with its private key; audited; 10 per hour per account. */
export async function exportSigningKeys(ctx: EngineContext, accountId: string, productId: string, by: Actor | null = null): Promise<SigningKeyExport> {
  return transact(ctx, async (tx) => {
    const [product, account] = await together([owned(tx, 'products', accountId, productId, 'product'), tx.get('accounts', accountId)]);
    await spendHourlyBudget(ctx, tx, `export:${accountId}`, accountId, EXPORTS_PER_HOUR, 'private-key exports');
    const keys = (await tx.findMany('signingKeys', { productId })).sort((a, b) => a.seq - b.seq);
    const exported = keys.map((k) => {
      const seed = ctx.secrets.decrypt(k.privateKey, { purpose: 'signing-key', record: k.id });
      const entry = {
        kid: k.kid,
        status: k.status,
        publicKey: k.publicKey,
        privateKey: base64urlEncode(seed),
        privateKeyPkcs8: Buffer.from(seedToPkcs8(seed)).toString('base64'),
        createdAt: k.createdAt,
        activatedAt: k.activatedAt,
      };
      seed.fill(0);
      return entry;
    });
    await audit(ctx, tx, {
      accountId, type: 'signing_key.exported', licenseId: null, data: { product: productId, kids: keys.map((k) => k.kid) }, actor: by, account, view: () => productView(product),
    });
    return {
      format: 'svc-signing-keys-v1',
      exportedAt: now(ctx),
      product: { id: product.id, name: product.name, keyPrefix: product.keyPrefix },
      certificateFormat: 'CRT1',
      keys: exported,
    };
  });
}
