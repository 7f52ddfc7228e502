import type { ComponentChildren } from 'preact';
import { Alert } from '../../ui/components/alert.js';
import { CopyField } from '../../ui/components/copy.js';
import { Section } from '../../ui/components/layout.js';
import type { WebhookEndpointSecretView } from '../../ui/types.js';

/** A webhook endpoint's signing secret, just made (creation or rotation): shown this once, with a copy button. */
export function NewSecret({ endpoint, rotated, children }: { endpoint: WebhookEndpointSecretView; rotated: boolean; children?: ComponentChildren }) {
  return (
    <Section title="The signing secret">
      {children}
      <Alert kind="warning">
        Copy it now into your backend's secret store: this is the only time it is shown.
        {rotated ? ' The previous secret keeps signing beside it for 24 hours, so deploy the new one within a day.' : ''}
      </Alert>
      <CopyField value={endpoint.secret} what="signing secret" />
      <p class="muted">
        Verify each notification with it using the <code>standardwebhooks</code> package or any Svix library.
      </p>
    </Section>
  );
}
