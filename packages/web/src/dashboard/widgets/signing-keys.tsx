import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Button } from '../../ui/components/button.js';
import { ConfirmButton } from '../../ui/components/dialog.js';
import { CopyButton } from '../../ui/components/copy.js';
import { Badge, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { saveBlob } from '../../ui/download.js';
import { settled, useAction, useLoad } from '../../ui/hooks.js';
import type { ListView, ProductView, SigningKeyView } from '../../ui/types.js';
import { api } from '../api.js';
import { OwnerOnlyNote } from './owner-only.js';

const TONE = { active: 'good', pending: 'warn', retired: 'neutral' } as const;

/**
 * Signing keys with the two-phase rotation: step 1 publishes a pending key (it signs nothing),
 * step 2 activates it once the applications embed it. The owner can export the private keys.
 */
export function SigningKeys({ product, initial }: { product: ProductView; initial?: ListView<SigningKeyView> }) {
  const keys = useLoad(() => api.signingKeys.list(product.id), [product.id], initial);
  const [message, setMessage] = useState<string | null>(null);
  const creating = useAction();
  const list = keys.data?.data ?? null;
  const pending = list?.find((k) => k.status === 'pending');
  const active = list?.find((k) => k.status === 'active');

  const createPending = () =>
    creating.run(async () => {
      const key = await api.signingKeys.create(product.id);
      setMessage(`Step 1 done: ${key.kid} is published as pending. Ship its public key in your application, then activate it.`);
      keys.reload();
    });

  return (
    <Section title="Signing keys">
      <p>
        Certificates are signed with the <strong>active</strong> key; applications verify them with the public keys they embed. Rotate in two steps so no
        machine is cut off:
      </p>
      <ol class="steps">
        <li>
          <strong>Create a pending key.</strong> It is published below but signs nothing yet; the active key keeps signing.
        </li>
        <li>
          <strong>Ship its public key</strong> in a release of your application, next to the current one, and wait until your users have it.
        </li>
        <li>
          <strong>Activate it.</strong> From then on it signs every certificate and the previous key is retired (still accepted, never signing again).
          Applications without the new key see <code>invalid_signature</code> on new certificates. This cannot be undone.
        </li>
      </ol>
      <Alert kind="success">{message}</Alert>
      <Alert kind="error">{creating.error ?? keys.error?.message}</Alert>
      <Table
        caption={`Signing keys of ${product.name}, oldest first`}
        hideCaption
        rows={list}
        rowKey={(k) => k.kid}
        empty="No signing key."
        columns={[
          { label: 'Key', cell: (k) => <code>{k.kid}</code> },
          { label: 'Status', cell: (k) => <Badge tone={TONE[k.status]}>{k.status}</Badge> },
          {
            label: 'Public key',
            cell: (k) => (
              <span class="copy-field">
                <code class="mono">{k.publicKey}</code>
                <CopyButton value={k.publicKey} what={`public key ${k.kid}`} />
              </span>
            ),
          },
          { label: 'Created', cell: (k) => <DateTime value={k.createdAt} />, nowrap: true },
          { label: 'Activated', cell: (k) => <DateTime value={k.activatedAt} empty="not yet" />, nowrap: true },
          {
            label: 'Action',
            cell: (k) =>
              k.status === 'pending' ? (
                <ConfirmButton
                  label={`Activate ${k.kid}`}
                  title={`Activate ${k.kid}?`}
                  confirmLabel={`Activate ${k.kid} now`}
                  variant="primary"
                  onConfirm={async () => {
                    await api.signingKeys.activate(product.id, k.kid);
                    setMessage(`Step 3 done: ${k.kid} now signs every certificate${active ? `; ${active.kid} is retired` : ''}.`);
                    keys.reload();
                  }}
                >
                  <p>
                    From now on <strong>{k.kid}</strong> signs every new and refreshed certificate{active ? <> and {active.kid} is retired</> : null}. Only applications
                    that embed the public key of {k.kid} accept them. This cannot be undone.
                  </p>
                </ConfirmButton>
              ) : (
                '—'
              ),
          },
        ]}
      />
      {settled(keys) ? <>
      <div class="actions section-actions">
        <Button variant="secondary" busy={creating.busy} disabled={list === null || pending !== undefined} onClick={createPending}>
          Create a pending key
        </Button>
        {pending ? <span class="muted">{pending.kid} is pending: activate it before creating another.</span> : null}
      </div>
      <KeyExport product={product} />
      </> : null}
    </Section>
  );
}

function KeyExport({ product }: { product: ProductView }) {
  return (
    <div class="subsection">
      <h3>Back up the private keys</h3>
      <div class="warning-box">
        <p>
          <strong>Keep exports in a secure store: anyone holding one can issue licenses for {product.name}.</strong> The export holds every key of the product
          (pending, active and retired) with its private key. The service keeps signing after an export. Exports are limited to 10 per hour and recorded in the
          events.
        </p>
      </div>
      <OwnerOnlyNote what="export private keys" />
      <ConfirmButton
        label="Export the private keys"
        title="Export the private signing keys?"
        confirmLabel="Export and download"
        variant="danger"
        onConfirm={async () => {
          const blob = await api.signingKeys.export(product.id);
          saveBlob(blob, `${product.id}-signing-keys.json`);
        }}
      >
        <p>
          The file lets its holder sign certificates for <strong>{product.name}</strong>. Store it encrypted, offline if you can.
        </p>
      </ConfirmButton>
    </div>
  );
}
