import { signRevocationList } from '@svc-licensing/cert-format/sign';
import type { FreedActivationEntry, RevokedLicenseEntry } from '@svc-licensing/cert-format';
import { LicensingError } from '../_internal/errors.js';
import type { ProductRecord, RevocationEntryRecord, SigningKeyRecord } from '../_internal/records.js';
import type { EngineContext } from '../_internal/context.js';
import { transact } from '../_internal/context.js';
import { bumpRevocationSeq } from '../_internal/revocations.js';
import type { CachedRevocationList, RevocationListText } from '../_internal/revocations.js';
import { together } from '../_internal/together.js';

/** How many products' lists {@link EngineContext.revocationLists} keeps before starting over. */
const CACHED_LISTS_MAX = 1_000;

interface ListRead {
  product: ProductRecord;
  entries: RevocationEntryRecord[];
  key: SigningKeyRecord | null;
}

/**
 * `GET /v1/products/{id}/revocations`: the product's current RVL1 list, signed with its active key
 * (docs/rvl1.md, "What the server signs"). A product that never needed a list gets its first one
 * (empty, `seq` 1); once the earliest entry's `until` has passed, the call first moves the list to
 * the next `seq` without the entries that dropped out, in a unit of work of its own. The signed text
 * of a `seq` is kept in memory. No authentication: the list names no one in clear. `unknown_product`
 * for a product that does not exist.
 */
export async function getRevocationList(ctx: EngineContext, productId: string): Promise<RevocationListText> {
  for (let attempt = 0; ; attempt++) {
    const at = Math.floor(ctx.clock.now() / 1000);
    const product = typeof productId === 'string' && productId !== '' ? await transact(ctx, (tx) => tx.get('products', productId), { readOnly: true }) : null;
    if (!product) throw new LicensingError('unknown_product', `no product ${String(productId)}`);
    const seq = product.revocationSeq ?? 0;
    const cached = ctx.revocationLists.get(productId);
    if (seq > 0 && cached?.seq === seq && cached.nextDropOut > at) return { product: productId, seq, text: cached.text };
    // Product, entries and key in one unit: one snapshot, so a seq's text never holds a later change.
    const read = await transact(ctx, async (tx): Promise<ListRead | null> => {
      const [p, entries, key] = await together([
        tx.get('products', productId),
        tx.findMany('revocationEntries', { productId }),
        tx.findOne('signingKeys', { productId, status: 'active' }),
      ]);
      return p ? { product: p, entries, key } : null;
    });
    if (!read) throw new LicensingError('unknown_product', `no product ${productId}`);
    const issuedAt = read.product.revocationsAt ?? 0;
    const live = read.entries.filter((e) => e.until > issuedAt);
    const nextDropOut = Math.min(Infinity, ...live.map((e) => e.until));
    if ((read.product.revocationSeq ?? 0) === 0 || nextDropOut <= at) {
      if (attempt >= 3) throw new LicensingError('conflict', 'the revocation list kept changing; try again');
      await advance(ctx, productId, read.product.revocationSeq ?? 0);
      continue;
    }
    if (!read.key) throw new LicensingError('internal_error', `product ${productId} has no active signing key`);
    const list = signed(ctx, read.product, live, read.key, nextDropOut);
    if (ctx.revocationLists.size >= CACHED_LISTS_MAX) ctx.revocationLists.clear();
    ctx.revocationLists.set(productId, list);
    return { product: list.product, seq: list.seq, text: list.text };
  }
}

/** The next `seq`, now, without the entries that dropped out; nothing when another call got there first. */
async function advance(ctx: EngineContext, productId: string, seenSeq: number): Promise<void> {
  await transact(ctx, async (tx) => {
    const product = await tx.get('products', productId, { lock: true });
    if (!product || (product.revocationSeq ?? 0) !== seenSeq) return;
    const next = await bumpRevocationSeq(ctx, tx, product);
    const entries = await tx.findMany('revocationEntries', { productId });
    for (const e of entries) if (e.until <= (next.revocationsAt ?? 0)) await tx.delete('revocationEntries', e.id, { defer: true });
  });
}

function signed(ctx: EngineContext, product: ProductRecord, entries: RevocationEntryRecord[], key: SigningKeyRecord, nextDropOut: number): CachedRevocationList {
  const licenses: RevokedLicenseEntry[] = [];
  const activations: FreedActivationEntry[] = [];
  for (const e of entries) {
    if (e.fingerprint === null) licenses.push({ license: e.licenseId, until: e.until });
    else activations.push({ license: e.licenseId, fingerprint: e.fingerprint, freedAt: e.freedAt ?? 0, until: e.until });
  }
  const seed = ctx.secrets.decrypt(key.privateKey, { purpose: 'signing-key', record: key.id });
  try {
    const seq = product.revocationSeq ?? 0;
    const text = signRevocationList({ kid: key.kid, product: product.id, seq, issuedAt: product.revocationsAt ?? 0, licenses, activations }, seed);
    return { product: product.id, seq, text, nextDropOut };
  } finally {
    seed.fill(0);
  }
}
