import { defineRoute } from '../http/route.js';
import { HealthView } from '../http/views.js';

/** Liveness: 200 `{ status: 'ok' }`, no authentication, no rate limit. */
export const healthRoute = defineRoute({
  method: 'GET', path: '/health', api: 'public', tag: 'Meta', summary: 'Liveness check',
  response: HealthView,
  handler: () => ({ status: 'ok' }),
});
