import { Alert } from '../../ui/components/alert.js';
import type { IntegrationWithUrl } from '../../ui/types.js';

/**
 * What keeps an integration from working as set up, as the API reports it (`warnings`): a price map
 * naming a plan its product does not have, a provider_a API key the server cannot use. Nothing when
 * there is none.
 */
export function IntegrationWarnings({ warnings }: { warnings: IntegrationWithUrl['warnings'] }) {
  if (warnings.length === 0) return null;
  return (
    <Alert kind="warning">
      <p>
        <strong>This integration needs attention:</strong>
      </p>
      <ul>
        {warnings.map((w) => (
          <li key={`${w.code} ${w.message}`}>{w.message}</li>
        ))}
      </ul>
    </Alert>
  );
}
