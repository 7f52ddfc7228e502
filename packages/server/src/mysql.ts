// `@svc-licensing/server/mysql`: the MySQL/MariaDB store and its rate-limit windows. A subpath of
// its own, so the main entry never loads mysql2; every export is listed by name.
export { createMySqlStore } from './stores/mysql/store.js';
export type { MySqlStore } from './stores/mysql/store.js';
export type { MySqlStoreOptions } from './stores/mysql/options.js';
export { migrate } from './stores/mysql/migrate.js';
export type { MigrateOptions, MigrateResult } from './stores/mysql/migrate.js';
export { MySqlStoreError } from './stores/mysql/errors.js';
export type { MySqlStoreErrorCode } from './stores/mysql/errors.js';
export { createMySqlRateLimitStore } from './stores/mysql/rate-limit.js';
export type { MySqlRateLimitStore } from './stores/mysql/rate-limit.js';
