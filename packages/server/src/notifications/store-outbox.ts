import type { LicenseEngine } from '@svc-licensing/license-engine';
import type { OutboxPort } from './outbox-port.js';

/**
 * The outbox port over the engine's store: deliveries are written by the engine in the unit of
 * work of each audited change (the transactional outbox), claimed and recorded here for the
 * dispatcher. Shared by every server instance on one store.
 *
 * @example
 * ```ts
 * const dispatcher = startDispatcher({ outbox: createStoreOutbox(engine), sender: createWebhookSender({ allowance }) });
 * ```
 */
export function createStoreOutbox(engine: Pick<LicenseEngine, 'claimDueDeliveries' | 'recordDeliveryAttempts'>): OutboxPort {
  return {
    claimDue: (input) => engine.claimDueDeliveries(input),
    recordAttempts: (attempts) => engine.recordDeliveryAttempts(attempts),
  };
}
