import type { ClientLicenseQuery, ClientLicenseRecords, StoreTx } from './store.js';

/** `readClientLicense` of an adapter whose reads are in memory: the separate reads, in one call. */
export async function readClientRecords(tx: StoreTx, q: ClientLicenseQuery): Promise<ClientLicenseRecords> {
  const [product, license, signingKey] = await Promise.all([
    tx.get('products', q.productId),
    tx.findOne('licenses', { keyHash: q.keyHash }),
    tx.findOne('signingKeys', { productId: q.productId, status: 'active' }),
  ]);
  if (!license) return { product, license, plan: null, account: null, activation: null, signingKey };
  const [plan, account, activation] = await Promise.all([
    tx.get('plans', license.planId),
    tx.get('accounts', license.accountId),
    tx.findOne('activations', { licenseId: license.id, fingerprint: q.fingerprint }),
  ]);
  return { product, license, plan, account, activation, signingKey };
}
