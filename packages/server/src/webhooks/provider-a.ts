import type { PaymentCommand } from '@svc-licensing/license-engine';
import type { ProviderAClient, ProviderACustomer } from '../provider-a-client.js';
import type { IntegrationSecrets } from './secrets.js';
import type { ReportError } from './refusals.js';

/**
 * The provider_a customer a `customer_unknown` event names, fetched with the integration's API key;
 * null when the event names none or the lookup failed (reported).
 */
export async function lookUpCustomer(
  client: ProviderAClient,
  secrets: IntegrationSecrets & { apiKey: string },
  command: PaymentCommand,
  report: ReportError,
): Promise<ProviderACustomer | null> {
  const customerId = 'customer' in command ? command.customer.providerCustomerId : null;
  if (!customerId) return null;
  try {
    return await client.getCustomer({ apiKey: secrets.apiKey, customerId, environment: secrets.integration.environment });
  } catch (error) {
    report(error, { integrationId: secrets.integration.id, what: 'provider_a customer lookup' });
    return null;
  }
}

/** The command naming the fetched customer by e-mail too (the engine then saves the mapping). */
export function withCustomer(command: PaymentCommand, found: { id: string; email: string; name: string | null }): PaymentCommand {
  if (command.kind !== 'purchase_completed' && command.kind !== 'subscription_paid' && command.kind !== 'subscription_changed') return command;
  return { ...command, customer: { providerCustomerId: found.id, email: found.email, name: found.name } };
}
