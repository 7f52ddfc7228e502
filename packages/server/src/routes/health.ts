import { ApiError } from '../http/errors.js';
import { defineRoute } from '../http/route.js';
import { HealthView, ReadyView } from '../http/views.js';

/** Liveness: 200 `{ status: 'ok' }`, no authentication, no rate limit. */
export const healthRoute = defineRoute({
  method: 'GET', path: '/health', api: 'public', tag: 'Meta', summary: 'Liveness check',
  response: HealthView,
  handler: () => ({ status: 'ok' }),
});

/**
 * Whether the instance can serve: resolves `null` when ready, else the reason it is not. Must
 * answer within about a second (the route gives up after {@link READY_TIMEOUT_MS}).
 */
export type ReadinessCheck = () => Promise<string | null>;

/** The longest `GET /ready` waits for its check before answering 503. */
export const READY_TIMEOUT_MS = 2000;

/**
 * Readiness, for load balancers: 200 `{ status: 'ready' }` when `check` says so, else
 * `503 not_ready` with the reason, within {@link READY_TIMEOUT_MS} whatever the check does. No
 * authentication, no rate limit. Liveness stays `GET /health`.
 */
export function createReadyRoute(check: ReadinessCheck) {
  return defineRoute({
    method: 'GET', path: '/ready', api: 'public', tag: 'Meta', summary: 'Readiness check (the store answers)',
    response: ReadyView, errors: ['not_ready'],
    handler: async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`the readiness check did not finish within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
      });
      try {
        const reason = await Promise.race([check().catch(() => 'the readiness check failed'), late]);
        if (reason !== null) throw new ApiError('not_ready', `Not ready: ${reason}.`);
        return { status: 'ready' as const };
      } finally {
        clearTimeout(timer);
      }
    },
  });
}
