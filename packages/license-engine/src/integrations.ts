import { LicensingError } from './errors.js';
import type { Environment, IntegrationRecord, ProviderName } from './records.js';
import type { EngineContext } from './_internal/context.js';
import { now, owned, rememberIntegrationHome, transact } from './_internal/context.js';
import { sha256Hex } from './_internal/hash.js';
import { asObject, invalid, requireString } from './_internal/validate.js';
import type { IntegrationView, ListView } from './views.js';
import { integrationView } from './views.js';
import { openCursor, sealCursor } from './_internal/cursor.js';

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

const seal = (ctx: EngineContext, value: unknown, field: string) => ctx.secrets.encrypt(new TextEncoder().encode(requireString(value, field, 1000)));
const open = (ctx: EngineContext, sealed: string | null) => (sealed === null ? null : new TextDecoder().decode(ctx.secrets.decrypt(sealed)));

export async function listIntegrations(ctx: EngineContext, accountId: string, options: { cursor?: string | null } = {}): Promise<ListView<IntegrationView>> {
  const scope = ['integrations', accountId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    const page = await tx.page('integrations', { where: { accountId }, cursor, limit: 50, order: 'desc' });
    return { data: page.data.map(integrationView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}

export async function getIntegration(ctx: EngineContext, accountId: string, id: string): Promise<IntegrationView> {
  return transact(ctx, async (tx) => integrationView(await owned(tx, 'integrations', accountId, id, 'integration')));
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
  const webhookSecret = body.webhookSecret === undefined || body.webhookSecret === null ? null : seal(ctx, body.webhookSecret, 'webhookSecret');
  const apiKey = body.apiKey === undefined || body.apiKey === null ? null : seal(ctx, body.apiKey, 'apiKey');
  return transact(ctx, async (tx) => {
    await owned(tx, 'products', accountId, productId, 'product');
    if (await tx.findOne('integrations', { productId, provider, environment })) {
      throw new LicensingError('conflict', `product ${productId} already has a ${environment} ${provider} integration`);
    }
    const at = now(ctx);
    const record: IntegrationRecord = {
      id: ctx.ids.next('int'),
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
  if (body.webhookSecret !== undefined) changes.webhookSecret = seal(ctx, body.webhookSecret, 'webhookSecret');
  if (body.apiKey !== undefined) changes.apiKey = body.apiKey === null ? null : seal(ctx, body.apiKey, 'apiKey');
  return transact(ctx, async (tx) => {
    const current = await owned(tx, 'integrations', accountId, id, 'integration', true);
    if (current.provider === 'provider_b' && changes.apiKey) invalid('apiKey applies to provider_a only');
    const next: IntegrationRecord = { ...current, ...changes, updatedAt: now(ctx) };
    const clash = await tx.findOne('integrations', { productId: next.productId, provider: next.provider, environment: next.environment });
    if (clash && clash.id !== id) throw new LicensingError('conflict', `product ${next.productId} already has a ${next.environment} ${next.provider} integration`);
    await tx.update('integrations', next);
    return integrationView(next);
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
        webhookSecret: open(ctx, record.webhookSecret),
        apiKey: open(ctx, record.apiKey),
        secretsVersion: secretsVersionOf(record),
      };
    },
    { readOnly: true },
  );
}
