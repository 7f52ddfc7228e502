import { MySqlStoreError } from './errors.js';

/** Store options that may also be given in the database URL's query string. */
export const URL_OPTIONS = ['poolSize', 'connectTimeoutMs', 'queryTimeoutMs', 'probeAfterMs', 'acquireTimeoutMs', 'lockWaitTimeoutSeconds', 'maxRetries', 'syncWait'] as const;

export type UrlOption = (typeof URL_OPTIONS)[number];

/**
 * Splits `mysql://host/db?poolSize=20&queryTimeoutMs=5000` into the connection URL (other query
 * parameters, such as mysql2's `ssl`, stay in it) and the store options it carries, so a
 * deployment configured by one URL (`--database`, `SVC_DATABASE_URL`) can size its pool.
 */
export function splitStoreUrl(url: string): { url: string; options: Partial<Record<UrlOption, number>> } {
  const parsed = new URL(url);
  const options: Partial<Record<UrlOption, number>> = {};
  for (const name of URL_OPTIONS) {
    const raw = parsed.searchParams.get(name);
    if (raw === null) continue;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || (value < 1 && name !== 'maxRetries' && name !== 'syncWait')) {
      throw new MySqlStoreError('store_config', `mysql store: ${name} in the database URL must be a whole number, got ${JSON.stringify(raw)}`);
    }
    options[name] = value;
    parsed.searchParams.delete(name);
  }
  return { url: parsed.toString(), options };
}
