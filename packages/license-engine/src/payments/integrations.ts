import { LicensingError } from '../_internal/errors.js';
import type { Environment, IntegrationRecord, ProviderName } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, rememberIntegrationHome, transact } from '../_internal/context.js';
import { sha256Hex } from '../_internal/hash.js';
import { asObject, invalid, requireString } from '../_internal/validate.js';
import type { IntegrationView, IntegrationWarning, ListView } from '../_internal/views.js';
import { integrationView } from '../_internal/record-views.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';

export interface CreateIntegrationInput {
  provider: ProviderName;
  product: string;
  environment?: Environment;
  webhookSecret?: string;
  priceMap?: Record<string, string>;
  /** provider_a only: read access to customers, to fetch an unknown customer's e-mail. */
  apiKey?: string;
}

export interface UpdateIntegrationInput {
  environment?: Environment;
  webhookSecret?: string;
  apiKey?: string | null;
  priceMap?: Record<string, string>;
}

function parseEnvironment(value: unknown): Environment {
  if (value !== 'sandbox' && value !== 'live') invalid('environment must be sandbox or live');
  return value;
}

function parsePriceMap(value: unknown): Record<string, string> {
  const map = asObject(value, 'priceMap');
  const out: Record<string, string> = {};
  for (const [price, code] of Object.entries(map)) {
    if (price === '' || price.length > 200) invalid('priceMap keys must be provider price or variant IDs');
    out[price] = requireString(code, `priceMap.${price}`, 64);
  }
  return out;
}

/**
 * Refuses a price map naming a plan code the integration's product does not have (another
 * product's plan included): its purchases would otherwise be ignored without a word. Plans are
 * never deleted and their codes never change, so a map accepted here stays valid.
 */
async function checkPlanCodes(tx: StoreTx, productId: string, priceMap: Record<string, string>): Promise<void> {
  const wanted = [...new Set(Object.values(priceMap))];
  if (wanted.length === 0) return;
  const codes = await planCodesOf(tx, productId);
  const unknown = wanted.filter((code) => !codes.has(code));
  if (unknown.length > 0) {
    const names = unknown.map((code) => JSON.stringify(code)).join(', ');
    invalid(`priceMap names ${unknown.length === 1 ? 'a plan code' : 'plan codes'} that product ${productId} does not have: ${names}`);
  }
}

const planCodesOf = async (tx: StoreTx, productId: string): Promise<Set<string>> =>
  new Set((await tx.findMany('plans', { productId })).map((plan) => plan.code));

/**
 * The views of integrations with the warnings the engine can tell: a price map naming a plan code
 * its product does not have (saved before such maps were refused, or imported). One plan read per product.
 */
async function viewsOf(tx: StoreTx, records: IntegrationRecord[]): Promise<IntegrationView[]> {
  const codes = new Map<string, Set<string>>();
  for (const productId of new Set(records.map((r) => r.productId))) codes.set(productId, await planCodesOf(tx, productId));
  return records.map((record) => {
    const known = codes.get(record.productId)!;
    const warnings: IntegrationWarning[] = Object.entries(record.priceMap)
      .filter(([, code]) => !known.has(code))
      .map(([price, code]) => ({
        code: 'unknown_plan_code',
        message: `priceMap maps ${price} to plan code ${JSON.stringify(code)}, which product ${record.productId} does not have: purchases of this price are ignored`,
      }));
    return integrationView(record, warnings);
  });
}

/** An integration's secrets are sealed for their field and the integration, so neither opens as anything else. */
const purposeOf = { webhookSecret: 'webhook-secret', apiKey: 'provider-api-key' } as const;
const seal = (ctx: EngineContext, value: unknown, field: keyof typeof purposeOf, id: string) =>
  ctx.secrets.encrypt(new TextEncoder().encode(requireString(value, field, 1000)), { purpose: purposeOf[field], record: id });
const open = (ctx: EngineContext, sealed: string | null, field: keyof typeof purposeOf, id: string) =>
  sealed === null ? null : new TextDecoder().decode(ctx.secrets.decrypt(sealed, { purpose: purposeOf[field], record: id }));

export async function listIntegrations(ctx: EngineContext, accountId: string, options: { cursor?: string | null } = {}): Promise<ListView<IntegrationView>> {
  const scope = ['integrations', accountId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    const page = await tx.page('integrations', { where: { accountId }, cursor, limit: 50, order: 'desc' });
    return { data: await viewsOf(tx, page.data), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}

export async function getIntegration(ctx: EngineContext, accountId: string, id: string): Promise<IntegrationView> {
  return transact(ctx, async (tx) => (await viewsOf(tx, [await owned(tx, 'integrations', accountId, id, 'integration')]))[0]!);
}

/** `POST /integrations`: one per product, provider and environment (`conflict`). Secrets stored encrypted. */
export async function createIntegration(ctx: EngineContext, accountId: string, input: CreateIntegrationInput): Promise<IntegrationView> {
  const body = asObject(input);
  if (body.provider !== 'provider_a' && body.provider !== 'provider_b') invalid('provider must be provider_a or provider_b');
  const provider = body.provider;
  const productId = requireString(body.product, 'product', 100);
  const environment = body.environment === undefined ? 'live' : parseEnvironment(body.environment);
  if (provider === 'provider_b' && body.apiKey !== undefined && body.apiKey !== null) invalid('apiKey applies to provider_a only');
  const priceMap = body.priceMap === undefined ? {} : parsePriceMap(body.priceMap);
  const id = ctx.ids.next('int');
  const webhookSecret = body.webhookSecret === undefined || body.webhookSecret === null ? null : seal(ctx, body.webhookSecret, 'webhookSecret', id);
  const apiKey = body.apiKey === undefined || body.apiKey === null ? null : seal(ctx, body.apiKey, 'apiKey', id);
  return transact(ctx, async (tx) => {
    await owned(tx, 'products', accountId, productId, 'product');
    await checkPlanCodes(tx, productId, priceMap);
    if (await tx.findOne('integrations', { productId, provider, environment })) {
      throw new LicensingError('conflict', `product ${productId} already has a ${environment} ${provider} integration`);
    }
    const at = now(ctx);
    const record: IntegrationRecord = {
      id,
      accountId,
      productId,
      provider,
      environment,
      priceMap,
      webhookSecret,
      apiKey,
      createdAt: at,
      updatedAt: at,
    };
    await tx.insert('integrations', record);
    return integrationView(record);
  });
}

/** `PATCH /integrations/{id}`: environment, webhookSecret (replaces), apiKey (null removes), priceMap (replaces). */
export async function updateIntegration(ctx: EngineContext, accountId: string, id: string, patch: UpdateIntegrationInput): Promise<IntegrationView> {
  const body = asObject(patch);
  const changes: Partial<IntegrationRecord> = {};
  if (body.environment !== undefined) changes.environment = parseEnvironment(body.environment);
  if (body.priceMap !== undefined) changes.priceMap = parsePriceMap(body.priceMap);
  if (body.webhookSecret !== undefined) changes.webhookSecret = seal(ctx, body.webhookSecret, 'webhookSecret', id);
  if (body.apiKey !== undefined) changes.apiKey = body.apiKey === null ? null : seal(ctx, body.apiKey, 'apiKey', id);
  return transact(ctx, async (tx) => {
    const current = await owned(tx, 'integrations', accountId, id, 'integration', true);
    if (current.provider === 'provider_b' && changes.apiKey) invalid('apiKey applies to provider_a only');
    if (changes.priceMap) await checkPlanCodes(tx, current.productId, changes.priceMap);
    const next: IntegrationRecord = { ...current, ...changes, updatedAt: now(ctx) };
    const clash = await tx.findOne('integrations', { productId: next.productId, provider: next.provider, environment: next.environment });
    if (clash && clash.id !== id) throw new LicensingError('conflict', `product ${next.productId} already has a ${next.environment} ${next.provider} integration`);
    await tx.update('integrations', next);
    // A map left as it was (saved before unknown codes were refused) keeps its warnings.
    return (await viewsOf(tx, [next]))[0]!;
  });
}

/** `DELETE /integrations/{id}`: later webhooks to its URL get 404. Returns the removed integration. */
export async function deleteIntegration(ctx: EngineContext, accountId: string, id: string): Promise<IntegrationView> {
  return transact(ctx, async (tx) => {
    const record = await owned(tx, 'integrations', accountId, id, 'integration');
    await tx.delete('integrations', id);
    return integrationView(record);
  });
}

/**
 * How many provider_a integrations of each environment hold an API key, across every account: the
 * host warns at start when it has no API address for an environment that has some.
 */
export async function countProviderAApiKeys(ctx: EngineContext): Promise<Record<Environment, number>> {
  return transact(
    ctx,
    async (tx) => {
      const count = async (environment: Environment) =>
        (await tx.findMany('integrations', { provider: 'provider_a', environment })).filter((i) => i.apiKey !== null).length;
      return { sandbox: await count('sandbox'), live: await count('live') };
    },
    { readOnly: true },
  );
}

/**
 * Identifies the secrets an integration holds now: it changes whenever its webhook secret or API key
 * is set, replaced or removed (each is encrypted with a fresh nonce). Opaque; see `applyPaymentCommand`.
 */
export function secretsVersionOf(record: Pick<IntegrationRecord, 'webhookSecret' | 'apiKey'>): string {
  return sha256Hex(`${JSON.stringify(record.webhookSecret)}\n${JSON.stringify(record.apiKey)}`).slice(0, 32);
}

/**
 * For the webhook receiver only: the integration with its decrypted secrets, or null when it does
 * not exist. `secretsVersion` lets a host that keeps these in memory have a delivery's unit of work
 * check that they are still the integration's (`applyPaymentCommand`'s `secretsVersion`).
 */
export async function getIntegrationSecrets(
  ctx: EngineContext,
  integrationId: string,
): Promise<{ integration: IntegrationView; accountId: string; webhookSecret: string | null; apiKey: string | null; secretsVersion: string } | null> {
  if (typeof integrationId !== 'string' || integrationId === '') return null;
  // Read-only (every webhook delivery starts here): on MySQL one autocommitted SELECT, no COMMIT.
  return transact(
    ctx,
    async (tx) => {
      const record = await tx.get('integrations', integrationId);
      if (!record) return null;
      rememberIntegrationHome(ctx, record);
      return {
        integration: integrationView(record),
        accountId: record.accountId,
        webhookSecret: open(ctx, record.webhookSecret, 'webhookSecret', record.id),
        apiKey: open(ctx, record.apiKey, 'apiKey', record.id),
        secretsVersion: secretsVersionOf(record),
      };
    },
    { readOnly: true },
  );
}
