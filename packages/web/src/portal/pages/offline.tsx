import { Alert } from '../../ui/components/alert.js';
import { PageHeader } from '../../ui/components/layout.js';
import { OfflineActivationForm } from '../../ui/components/offline-activation.js';
import { useLoad } from '../../ui/hooks.js';
import { api } from '../api.js';
import { appNameOf, usePortal } from '../context.js';

/** Air-gapped activation: upload the machine's request, get back the certificate file. */
export function OfflinePage() {
  const portal = usePortal();
  const licenses = useLoad(() => api.licenses.list(), []);
  return (
    <div>
      <PageHeader title="Activate a machine without internet" appName={appNameOf(portal)}>
        <ol class="steps">
          <li>On the machine, let the application write an activation request file.</li>
          <li>Bring the file to this page (USB stick, another computer) and upload it.</li>
          <li>Download the certificate file and import it in the application on the machine.</li>
        </ol>
      </PageHeader>
      <Alert kind="error">{licenses.error?.message}</Alert>
      {licenses.data ? (
        <OfflineActivationForm
          licenses={licenses.data.data.map((l) => ({ id: l.id, label: `${l.product.name} · ${l.plan.name}` }))}
          activate={(input) => api.activations.activateOffline(input)}
        />
      ) : null}
    </div>
  );
}
