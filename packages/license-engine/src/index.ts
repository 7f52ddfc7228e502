export type * from './records.js';
export type { Store, StoreTx, Where, ReadOptions, PageQuery, Page } from './store.js';
export { StoreConflictError, storeSchema } from './store.js';
export type * from './commands.js';
export { LicensingError } from './errors.js';
export type { LicensingErrorCode } from './errors.js';
export type { Clock, Random, IdGenerator, IdPrefix, SecretBox } from './ports.js';
