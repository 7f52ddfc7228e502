/** How the CLI's commands open the store and the engine over it (the master key checked first). */
import { createLicenseEngine, createSecretBox } from '@svc-licensing/license-engine';
import type { LicenseEngine, Store } from '@svc-licensing/license-engine';
import { MASTER_KEY_ENV } from './config.js';
import type { Env, StoreChoice } from './config.js';
import { MASTER_KEY_FILE, checkMasterKey, resolveMasterKey } from './master-key.js';
import { openStore } from './stores/index.js';

/** Opens the store and wires the engine with real ports. */
export async function openEngine(
  choice: StoreChoice,
  env: Env,
  onFailure?: (error: unknown) => void,
  onNotificationsQueued?: () => void,
): Promise<{ engine: LicenseEngine; store: Store }> {
  // The key first for a database (no connection without it); after the store (which creates the folder) for a data folder.
  const keyFromEnv = choice.kind === 'embedded' ? null : await resolveMasterKey({ fromEnv: env[MASTER_KEY_ENV], ephemeral: choice.kind === 'memory' });
  const store = await openStore(choice, onFailure ? { onFailure } : {});
  try {
    // A new key only for an empty folder: data already there was encrypted with a key that must come back.
    const empty = keyFromEnv !== null || (await store.transaction((tx) => tx.count('accounts', {}))) === 0;
    const { key, source } =
      keyFromEnv ?? (await resolveMasterKey({ fromEnv: env[MASTER_KEY_ENV], dataDir: (choice as { dataDir: string }).dataDir, generate: empty }));
    const secrets = createSecretBox(key);
    await checkMasterKey(store, secrets, source === 'data-folder' ? `${MASTER_KEY_FILE} in the data folder` : MASTER_KEY_ENV);
    const engine = createLicenseEngine({ store, secrets, ...(onNotificationsQueued ? { onNotificationsQueued } : {}) });
    return { engine, store };
  } catch (error) {
    await store.close();
    throw error;
  }
}
