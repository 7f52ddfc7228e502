import { LicensingError } from '../_internal/errors.js';
import type { ProductRecord } from '../_internal/records.js';
import { loadAccount } from '../_internal/account.js';
import { insertSigningKey } from './signing-keys.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, servicePlanOf, transact } from '../_internal/context.js';
import { asObject, invalid, requireInt, requireString } from '../_internal/validate.js';
import type { ListView, ProductView } from '../_internal/views.js';
import { productView } from '../_internal/record-views.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';

/**
 * Defaults where the spec leaves product fields optional (docs/decisions.md).
 *
 * @example
 * ```ts
 * PRODUCT_DEFAULTS.offlineDays; // 7
 * ```
 */
export const PRODUCT_DEFAULTS = { graceDays: 3, offlineDays: 7 } as const;

const KEY_PREFIX = /^[A-Z0-9][A-Z0-9-]{0,15}$/;

function parseKeyPrefix(value: unknown): string {
  const prefix = requireString(value, 'keyPrefix', 16).toUpperCase();
  if (!KEY_PREFIX.test(prefix)) invalid('keyPrefix must be 1 to 16 letters, digits or hyphens, starting with a letter or digit');
  return prefix;
}

export interface CreateProductInput {
  name: string;
  keyPrefix: string;
  graceDays?: number;
  offlineDays?: number;
}

/** `POST /products`: also creates signing key `k1`, active. `plan_limit` beyond the service plan. */
export async function createProduct(ctx: EngineContext, accountId: string, input: CreateProductInput): Promise<ProductView> {
  const body = asObject(input);
  const name = requireString(body.name, 'name', 200);
  const keyPrefix = parseKeyPrefix(body.keyPrefix);
  const graceDays = body.graceDays === undefined ? PRODUCT_DEFAULTS.graceDays : requireInt(body.graceDays, 'graceDays', 0, 365);
  const offlineDays = body.offlineDays === undefined ? PRODUCT_DEFAULTS.offlineDays : requireInt(body.offlineDays, 'offlineDays', 1, 365);
  return transact(ctx, async (tx) => {
    // The account row is locked so concurrent creations count one after the other.
    const account = await loadAccount(tx, accountId, true);
    const { productLimit } = servicePlanOf(ctx, account.servicePlan);
    if (productLimit !== null && (await tx.count('products', { accountId })) >= productLimit) {
      throw new LicensingError('plan_limit', `the ${account.servicePlan} service plan allows ${productLimit} product(s)`);
    }
    const at = now(ctx);
    const product: ProductRecord = { id: ctx.ids.next('prd'), accountId, name, keyPrefix, graceDays, offlineDays, createdAt: at, updatedAt: at };
    await tx.insert('products', product);
    await insertSigningKey(ctx, tx, product, 1, 'active');
    return productView(product);
  });
}

export async function listProducts(ctx: EngineContext, accountId: string, options: { cursor?: string | null } = {}): Promise<ListView<ProductView>> {
  const scope = ['products', accountId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    const page = await tx.page('products', { where: { accountId }, cursor, limit: 50, order: 'desc' });
    return { data: page.data.map(productView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}

export async function getProduct(ctx: EngineContext, accountId: string, id: string): Promise<ProductView> {
  return transact(ctx, async (tx) => productView(await owned(tx, 'products', accountId, id, 'product')));
}

/** `PATCH /products/{id}`: any of name, keyPrefix (new keys only), graceDays, offlineDays. */
export async function updateProduct(ctx: EngineContext, accountId: string, id: string, patch: Partial<CreateProductInput>): Promise<ProductView> {
  const body = asObject(patch);
  const changes: Partial<ProductRecord> = {};
  if (body.name !== undefined) changes.name = requireString(body.name, 'name', 200);
  if (body.keyPrefix !== undefined) changes.keyPrefix = parseKeyPrefix(body.keyPrefix);
  if (body.graceDays !== undefined) changes.graceDays = requireInt(body.graceDays, 'graceDays', 0, 365);
  if (body.offlineDays !== undefined) changes.offlineDays = requireInt(body.offlineDays, 'offlineDays', 1, 365);
  return transact(ctx, async (tx) => {
    const product = await owned(tx, 'products', accountId, id, 'product', true);
    const next = { ...product, ...changes, updatedAt: now(ctx) };
    await tx.update('products', next);
    return productView(next);
  });
}
