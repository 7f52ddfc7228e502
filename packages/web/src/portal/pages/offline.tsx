import { useContext } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { PageHeader } from '../../ui/components/layout.js';
import { OfflineActivationForm, type OfflineActivationResult } from '../../ui/components/offline-activation.js';
import { useLoad } from '../../ui/hooks.js';
import { api, type PortalLicense } from '../api.js';
import { PortalContext } from '../app.js';

/** Air-gapped activation: upload the machine's request, get back the certificate file. */
export function OfflinePage() {
  const portal = useContext(PortalContext);
  const licenses = useLoad(() => api.get<{ data: PortalLicense[] }>('licenses'), []);
  return (
    <div>
      <PageHeader title="Activate a machine without internet" appName={`${portal.accountName} licenses`}>
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
          activate={(input) => api.post<OfflineActivationResult>('activations/offline', input)}
        />
      ) : null}
    </div>
  );
}
