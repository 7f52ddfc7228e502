export { createMySqlStore } from './store.js';
export type { MySqlStore } from './store.js';
export type { MySqlStoreOptions } from './options.js';
export { migrate } from './migrate.js';
export type { MigrateOptions, MigrateResult } from './migrate.js';
export { MySqlStoreError } from './errors.js';
export type { MySqlStoreErrorCode } from './errors.js';
export { createMySqlRateLimitStore } from './rate-limit.js';
export type { MySqlRateLimitStore } from './rate-limit.js';
