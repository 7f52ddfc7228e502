/** One signing key as `GET /v1/products/{id}/keys` lists it; its other fields (`status`, dates) are ignored. */
export interface PublishedSigningKey {
  readonly kid: string;
  readonly publicKey: string;
}

/**
 * Trusted public signing keys of a product, in either form: a map kid → base64url (no padding) of the
 * raw 32-byte Ed25519 key, or the list the service publishes — the whole `GET /v1/products/{id}/keys`
 * response (`{ data: [...] }`) or its `data` array, every key (pending, active, retired) included.
 *
 * @example
 * ```ts
 * const fromMap: PublicKeys = { k1: 'rZnPD_r-7f2eNCqRt4OwYdWKlMHcGwb76Jj3lRF2aMA' };
 * const fromApi: PublicKeys = await (await fetch(`${api}/products/${product}/keys`, { headers })).json();
 * ```
 */
export type PublicKeys = Readonly<Record<string, string>> | readonly PublishedSigningKey[] | { readonly data: readonly PublishedSigningKey[] };

/**
 * The keys as a map kid → base64url key, or null when `keys` is none of the {@link PublicKeys}
 * forms. The key values themselves are checked by the caller.
 */
export function publicKeyMap(keys: unknown): Record<string, unknown> | null {
  if (typeof keys !== 'object' || keys === null) return null;
  const list: unknown = Array.isArray(keys) ? keys : Array.isArray((keys as { data?: unknown }).data) ? (keys as { data: unknown[] }).data : null;
  if (list === null) return { ...(keys as Record<string, unknown>) };
  const map: Record<string, unknown> = {};
  for (const entry of list as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return null;
    const { kid, publicKey } = entry as { kid?: unknown; publicKey?: unknown };
    if (typeof kid !== 'string' || kid === '' || Object.hasOwn(map, kid)) return null;
    map[kid] = publicKey;
  }
  return map;
}
