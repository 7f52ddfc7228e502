import { LicensingError } from '../_internal/errors.js';
import type { Actor, ApiKeyRecord } from '../_internal/records.js';
import { audit } from '../_internal/audit.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, readMostly, transact } from '../_internal/context.js';
import { sha256Hex } from '../_internal/hash.js';
import { timestampMs } from '../_internal/time.js';
import { requireString } from '../_internal/validate.js';
import type { ApiKeyCreatedView, ApiKeyView, ListView } from '../_internal/views.js';
import { apiKeyView } from '../_internal/record-views.js';
import type { StoreTx } from '../_internal/store.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';

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
export async function insertApiKey(ctx: EngineContext, tx: StoreTx, accountId: string, name: string, createdBy: Actor): Promise<ApiKeyCreatedView> {
  const key = newKeyValue(ctx);
  const record: ApiKeyRecord = {
    id: ctx.ids.next('key'),
    accountId,
    name,
    prefix: key.slice(0, 10),
    hash: sha256Hex(key),
    lastUsedAt: null,
    createdAt: now(ctx),
    createdBy: { kind: createdBy.kind, email: createdBy.email, apiKeyId: createdBy.apiKeyId },
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

/**
 * API keys are the owner's: created and revoked by the owner's session or by one of the account's
 * keys, never by a member, so no credential a member made outlives their membership.
 */
function requireKeyManager(by: Actor): void {
  if (by?.kind !== 'owner' && by?.kind !== 'api_key' && by?.kind !== 'operator') {
    throw new LicensingError('forbidden', 'Only the account owner creates and revokes API keys; a member cannot.');
  }
}

/** `POST /api-keys`: a new key, recorded as created by `by` (the owner, an API key or the operator; a member is `forbidden`). */
export async function createApiKey(ctx: EngineContext, accountId: string, input: { name?: unknown }, by: Actor): Promise<ApiKeyCreatedView> {
  requireKeyManager(by);
  const name = requireString(input?.name, 'name', 200);
  return transact(ctx, async (tx) => {
    const account = await tx.get('accounts', accountId);
    if (!account) throw new LicensingError('not_found', `account ${accountId} not found`);
    if (account.status === 'closed') throw new LicensingError('account_closed', 'the account is closed');
    const created = await insertApiKey(ctx, tx, accountId, name, by);
    await audit(ctx, tx, { accountId, type: 'api_key.created', licenseId: null, data: { apiKey: created.id, name }, actor: by, account });
    return created;
  });
}

/** Revokes (deletes) a key; returns the revoked key as listed. A member is `forbidden`. */
export async function revokeApiKey(ctx: EngineContext, accountId: string, id: string, by: Actor): Promise<ApiKeyView> {
  requireKeyManager(by);
  return transact(ctx, async (tx) => {
    const key = await owned(tx, 'apiKeys', accountId, id, 'API key');
    await tx.delete('apiKeys', id);
    await audit(ctx, tx, { accountId, type: 'api_key.revoked', licenseId: null, data: { apiKey: key.id, name: key.name }, actor: by });
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
