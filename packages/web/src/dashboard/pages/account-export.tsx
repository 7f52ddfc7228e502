import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Button } from '../../ui/components/button.js';
import { PageHeader, Section } from '../../ui/components/layout.js';
import { saveBlob } from '../../ui/download.js';
import { useAction } from '../../ui/hooks.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { OwnerOnlyNote } from '../widgets/owner-only.js';

/** Account export (owner): one `svc-account-export-v1` document with everything the account holds. */
export function AccountExportPage() {
  const exporting = useAction();
  const [done, setDone] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="Export the account" appName={APP_NAME}>
        <p>Everything the account holds, in one JSON document: to keep a copy, or to move to another instance.</p>
      </PageHeader>
      <Section title="What the export holds">
        <ul>
          <li>account settings, products with their public keys, plans and customers;</li>
          <li>licenses with their keys, and their activations;</li>
          <li>integrations (without their secrets), API key names and prefixes (never the keys), and the audit events.</li>
        </ul>
        <p>
          Private signing keys are not in it: export them from each product's page. Moving to another instance needs both (see{' '}
          <code>svc-licensing account import</code>).
        </p>
        <div class="warning-box">
          <p>The file holds every license key: keep it as safely as a database backup.</p>
        </div>
        <OwnerOnlyNote what="export the account" />
        <Alert kind={exporting.error === null ? 'success' : 'error'}>{exporting.error ?? done}</Alert>
        <div class="actions">
          <Button
            variant="primary"
            busy={exporting.busy}
            onClick={() =>
              exporting.run(async () => {
                setDone(null);
                const blob = await api.account.export();
                saveBlob(blob, `account-export-${new Date().toISOString().slice(0, 10)}.json`);
                setDone(`The export is downloaded (${Math.ceil(blob.size / 1024)} KB).`);
              })
            }
          >
            Export and download
          </Button>
        </div>
      </Section>
    </>
  );
}
