import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components/field.js';
import { PageHeader } from '../../ui/components/layout.js';
import { OfflineActivationForm } from '../../ui/components/offline-activation.js';
import type { PageProps } from '../../ui/router.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';

/**
 * The vendor's air-gapped activation: a customer sends the machine's activation request, the vendor
 * activates it here (same rules as an online activation) and sends back the certificate file.
 * `POST /v1/activations/offline`.
 */
export function OfflineActivationPage({ route }: PageProps) {
  const [license, setLicense] = useState(route.query.get('license') ?? '');
  return (
    <div>
      <PageHeader title="Offline activation" appName={APP_NAME}>
        Activate a customer's machine that has no internet from the activation request its application wrote. The certificate file goes back to
        the machine. Releasing the machine later works like any other.
      </PageHeader>
      <OfflineActivationForm
        intro={
          <TextField
            label="License ID"
            hint="Needed only when the request does not carry the license key (lic_…)."
            value={license}
            onValue={setLicense}
            spellcheck={false}
          />
        }
        licenses={[]}
        activate={(input) => api.activations.activateOffline({ request: input.request, ...(license.trim() ? { license: license.trim() } : {}) })}
      />
    </div>
  );
}
