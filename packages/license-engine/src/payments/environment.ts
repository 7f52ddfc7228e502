import type { PaymentCommand } from '../_internal/commands.js';
import type { IntegrationRecord } from '../_internal/records.js';
import { invalid } from '../_internal/validate.js';
import type { PaymentApplied } from './result.js';
import { ignored } from './scope.js';

/** Checks a command's optional `environment` (`sandbox` or `live`). */
export function checkCommandEnvironment(command: Record<string, unknown>): void {
  if (command.environment !== undefined && command.environment !== 'sandbox' && command.environment !== 'live') {
    invalid('environment must be sandbox or live');
  }
}

/**
 * What an integration's `environment` means: a `live` integration acts only on live events and a
 * `sandbox` one only on test-mode events. An event whose payload says it belongs to the other
 * environment is `ignored` (logged, nothing else changes), so a test purchase never issues a real
 * license and a real order never lands in a sandbox integration's licenses. Null when the event may
 * apply (same environment, or the payload does not say).
 */
export function otherEnvironment(integration: Pick<IntegrationRecord, 'environment'>, command: PaymentCommand): PaymentApplied | null {
  if (command.environment === undefined || command.environment === integration.environment) return null;
  const event = command.environment === 'sandbox' ? 'a test-mode event' : 'a live event';
  const target = integration.environment === 'sandbox' ? 'the sandbox integration' : 'the live integration';
  const fix = integration.environment === 'live' ? "send the provider's test-mode webhooks to a sandbox integration" : "send live webhooks to a live integration";
  return ignored(`${event} reached ${target}; nothing changed (${fix})`);
}
