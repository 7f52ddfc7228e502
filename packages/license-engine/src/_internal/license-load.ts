import { LicensingError } from './errors.js';
import type { ActivationRecord, LicenseRecord, PlanRecord, ProductRecord } from './records.js';
import { isFloating } from './plan-seats.js';
import { leaseCounts } from './lease.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './context.js';
import type { LicenseDetailView, LicenseView } from './views.js';
import { activationView, licenseView } from './record-views.js';
import { openLicenseKey } from './sealed.js';
import { together } from './together.js';

/**
 * Builds license views, reading each plan and product once per call, and a floating license's
 * activations (its lease counts at `nowMs`) unless `preread` has them. `remember(product)`: a
 * product the unit has read (or written) already, used instead of reading it again (`rememberPlan` the
 * same for a plan); `preload(license)`:
 * the plan and product read ahead, so a view after the unit's writes reads nothing.
 */
export function licenseViews(tx: StoreTx, nowMs: number, preread?: Map<string, ActivationRecord[]>) {
  const plans = new Map<string, Promise<PlanRecord | null>>();
  const products = new Map<string, Promise<ProductRecord | null>>();
  const cached = <T>(map: Map<string, Promise<T>>, id: string, load: () => Promise<T>) => {
    let hit = map.get(id);
    if (!hit) {
      hit = load();
      map.set(id, hit);
    }
    return hit;
  };
  const view = async (license: LicenseRecord): Promise<LicenseView> => {
    // Asked for together: one round trip on the MySQL store.
    const [plan, product] = await together([
      cached(plans, license.planId, () => tx.get('plans', license.planId)),
      cached(products, license.productId, () => tx.get('products', license.productId)),
    ]);
    if (!plan || !product) throw new LicensingError('internal_error', `license ${license.id} refers to a missing plan or product`);
    if (!isFloating(plan)) return licenseView(license, plan, product);
    const activations = preread?.get(license.id) ?? (await tx.findMany('activations', { licenseId: license.id }));
    return licenseView(license, plan, product, leaseCounts(activations, nowMs));
  };
  const remember = (product: ProductRecord): void => void products.set(product.id, Promise.resolve(product));
  /** A plan the unit has read already (`readLicenseParents`), used instead of reading it again. */
  const rememberPlan = (plan: PlanRecord): void => void plans.set(plan.id, Promise.resolve(plan));
  /** Reads the license's plan and product now (one round trip on the MySQL store), for a view built after the unit's writes. */
  const preload = async (license: LicenseRecord): Promise<void> => {
    await together([cached(plans, license.planId, () => tx.get('plans', license.planId)), cached(products, license.productId, () => tx.get('products', license.productId))]);
  };
  return Object.assign(view, { remember, rememberPlan, preload });
}

/** The create and detail response: the view plus the decrypted key and the activations, oldest first. */
export async function licenseDetail(ctx: EngineContext, tx: StoreTx, license: LicenseRecord): Promise<LicenseDetailView> {
  const activations = await tx.findMany('activations', { licenseId: license.id });
  const nowMs = ctx.clock.now();
  const view = await licenseViews(tx, nowMs, new Map([[license.id, activations]]))(license);
  return {
    ...view,
    key: openLicenseKey(ctx, license),
    activations: activations.map((a) => activationView(a, nowMs)),
  };
}
