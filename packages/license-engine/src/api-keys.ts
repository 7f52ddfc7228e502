import { LicensingError } from './errors.js';
import type { ApiKeyRecord } from './records.js';
import type { EngineContext } from './_internal/context.js';
import { now, owned, readMostly, transact } from './_internal/context.js';
import { sha256Hex } from './_internal/hash.js';
import { timestampMs } from './_internal/time.js';
import { requireString } from './_internal/validate.js';
import type { ApiKeyCreatedView, ApiKeyView, ListView } from './views.js';
import { apiKeyView } from './views.js';
import type { StoreTx } from './store.js';
import { openCursor, sealCursor } from './_internal/cursor.js';

const KEY_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_FORM = /^svc_sk_[A-Za-z0-9]{32}$/;

/** A new secret API key value: `svc_sk_` + 32 characters, uniform over 62 letters and digits. */
function newKeyValue(ctx: EngineContext): string {
  let out = 'svc_sk_';
  while (out.length < 39) {
    for (const byte of ctx.random.bytes(48)) {
      // 248 = 4 x 62: rejecting bytes above it keeps every character equally likely.
      if (byte < 248 && out.length < 39) out += KEY_CHARS[byte % 62];
    }
  }
  return out;
}

/** Inserts an API key inside the caller's transaction; returns the view with the value. */
export async function insertApiKey(ctx: EngineContext, tx: StoreTx, accountId: string, name: string): Promise<ApiKeyCreatedView> {
  const key = newKeyValue(ctx);
  const record: ApiKeyRecord = {
    id: ctx.ids.next('key'),
    accountId,
    name,
    prefix: key.slice(0, 10),
    hash: sha256Hex(key),
    lastUsedAt: null,
    createdAt: now(ctx),
  };
  await tx.insert('apiKeys', record);
  return { ...apiKeyView(record), key };
}

export async function listApiKeys(ctx: EngineContext, accountId: string, options: { cursor?: string | null } = {}): Promise<ListView<ApiKeyView>> {
  const scope = ['apiKeys', accountId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    const page = await tx.page('apiKeys', { where: { accountId }, cursor, limit: 50, order: 'desc' });
    return { data: page.data.map(apiKeyView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}

export async function createApiKey(ctx: EngineContext, accountId: string, input: { name?: unknown }): Promise<ApiKeyCreatedView> {
  const name = requireString(input?.name, 'name', 200);
  return transact(ctx, async (tx) => {
    const account = await tx.get('accounts', accountId);
    if (!account) throw new LicensingError('not_found', `account ${accountId} not found`);
    if (account.status === 'closed') throw new LicensingError('account_closed', 'the account is closed');
    return insertApiKey(ctx, tx, accountId, name);
  });
}

/** Revokes (deletes) a key; returns the revoked key as listed. */
export async function revokeApiKey(ctx: EngineContext, accountId: string, id: string): Promise<ApiKeyView> {
  return transact(ctx, async (tx) => {
    const key = await owned(tx, 'apiKeys', accountId, id, 'API key');
    await tx.delete('apiKeys', id);
    return apiKeyView(key);
  });
}

/**
 * How far an API key's `lastUsedAt` may lag behind its last use: `authenticate` writes the key only
 * when `lastUsedAt` would move by more than this, so most vendor requests only read.
 *
 * @example
 * ```ts
 * API_KEY_LAST_USED_RESOLUTION_MS; // 60000
 * ```
 */
export const API_KEY_LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Looks up a bearer value by its SHA-256 (the value itself is never stored, so no secret is
 * compared) and records `lastUsedAt` to within `API_KEY_LAST_USED_RESOLUTION_MS`. null for an
 * unknown key or a closed account.
 */
export async function authenticate(ctx: EngineContext, bearer: string): Promise<{ accountId: string; apiKeyId: string } | null> {
  if (typeof bearer !== 'string' || !KEY_FORM.test(bearer)) return null;
  const hash = sha256Hex(bearer);
  // Only a key whose lastUsedAt is stale is written.
  return readMostly(ctx, (tx, write) => authenticateIn(ctx, tx, hash, write));
}

/** One authentication in `tx`; without `write`, undefined when `lastUsedAt` must be written. */
async function authenticateIn(
  ctx: EngineContext,
  tx: StoreTx,
  hash: string,
  write: boolean,
): Promise<{ accountId: string; apiKeyId: string } | null | undefined> {
  const key = await tx.findOne('apiKeys', { hash });
  if (!key) return null;
  const account = await tx.get('accounts', key.accountId);
  if (!account || account.status !== 'open') return null;
  const stale = key.lastUsedAt === null || ctx.clock.now() - timestampMs(key.lastUsedAt) > API_KEY_LAST_USED_RESOLUTION_MS;
  if (stale) {
    if (!write) return undefined;
    await tx.update('apiKeys', { ...key, lastUsedAt: now(ctx) });
  }
  return { accountId: key.accountId, apiKeyId: key.id };
}
