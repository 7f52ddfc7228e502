import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LicenseEngine, Store } from '@svc-licensing/license-engine';

/** Where `serve` leaves the first account's credentials in a new data folder. */
export const INITIAL_ACCOUNT_FILE = 'initial-account.json';

/**
 * On a data folder that holds no account yet, creates one (service plan `unlimited`: it is the
 * operator's own) and writes its ID and API key to
 * `<dataDir>/initial-account.json` (mode 0600), so a fresh `serve` is usable at once: the folder is
 * locked while the server runs, so `account create` cannot be run beside it. The key is never logged;
 * only the file's path is. Returns that path, or null when the folder already had an account.
 */
export async function ensureInitialAccount(engine: LicenseEngine, store: Store, dataDir: string): Promise<string | null> {
  const accounts = await store.transaction((tx) => tx.count('accounts', {}));
  if (accounts > 0) return null;
  // The server's own operator: no service-plan limit, so the README walkthrough can be run again and again.
  const { account, apiKey } = await engine.createAccount({ name: 'Default', ownerEmail: 'owner@example.com', servicePlan: 'unlimited' });
  const path = join(dataDir, INITIAL_ACCOUNT_FILE);
  const body = { accountId: account.id, apiKey: apiKey.key, apiKeyId: apiKey.id, note: 'Created by the first serve of this data folder. Delete this file once the key is stored elsewhere.' };
  await writeFile(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  return path;
}
