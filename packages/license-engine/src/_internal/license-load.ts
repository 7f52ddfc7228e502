import { LicensingError } from '../errors.js';
import type { LicenseRecord, PlanRecord, ProductRecord } from '../records.js';
import type { StoreTx } from '../store.js';
import type { EngineContext } from './context.js';
import type { LicenseDetailView, LicenseView } from '../views.js';
import { activationView, licenseView } from '../views.js';

/** Builds license views, reading each plan and product once per call. */
export function licenseViews(tx: StoreTx) {
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
  return async (license: LicenseRecord): Promise<LicenseView> => {
    const plan = await cached(plans, license.planId, () => tx.get('plans', license.planId));
    const product = await cached(products, license.productId, () => tx.get('products', license.productId));
    if (!plan || !product) throw new LicensingError('internal_error', `license ${license.id} refers to a missing plan or product`);
    return licenseView(license, plan, product);
  };
}

/** The create and detail response: the view plus the decrypted key and the activations, oldest first. */
export async function licenseDetail(ctx: EngineContext, tx: StoreTx, license: LicenseRecord): Promise<LicenseDetailView> {
  const view = await licenseViews(tx)(license);
  const activations = await tx.findMany('activations', { licenseId: license.id });
  return {
    ...view,
    key: new TextDecoder().decode(ctx.secrets.decrypt(license.keyEncrypted)),
    activations: activations.map(activationView),
  };
}
