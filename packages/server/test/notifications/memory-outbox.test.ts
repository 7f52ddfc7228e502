import { createMemoryOutbox } from '../../src/notifications/index.js';
import { testOutboxPort } from './outbox-port-conformance.js';

// The reference implementation of the outbox port; the store-backed outboxes run the same suite.
testOutboxPort('memory', async () => {
  const outbox = createMemoryOutbox();
  return {
    port: outbox,
    addEndpoint: async (endpoint) => outbox.addEndpoint(endpoint),
    enqueue: async (delivery) => outbox.enqueue(delivery),
    delivery: async (id) => outbox.delivery(id),
    endpoint: async (id) => {
      const found = outbox.endpoint(id);
      return found && { enabled: found.enabled, disabledReason: found.disabledReason };
    },
  };
});
