import { decodeRevocationList, parseRevocationPayload } from '@svc-licensing/cert-format';
import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Button } from '../../ui/components/button.js';
import { Facts, Section } from '../../ui/components/layout.js';
import { DateTime } from '../../ui/components/time.js';
import { saveBlob } from '../../ui/download.js';
import { useAction } from '../../ui/hooks.js';
import type { ProductView } from '../../ui/types.js';
import { api } from '../api.js';

/** What the page shows of a list: read from its payload (no signature check; the app does that). */
function summary(text: string): { seq: number; issuedAt: number; licenses: number; machines: number } | null {
  const decoded = decodeRevocationList(text.trimEnd());
  if (!decoded.ok) return null;
  const parsed = parseRevocationPayload(decoded.payload);
  if (!parsed.ok) return null;
  const l = parsed.list;
  return { seq: l.seq, issuedAt: l.issuedAt, licenses: l.licenseCount, machines: l.activationCount };
}

/**
 * The product's signed revocation list (RVL1, docs/rvl1.md): its seq and entry counts, and a
 * download of the list exactly as `GET /v1/products/{id}/revocations` serves it, as `<productId>.rvl1`.
 */
export function RevocationList({ product, initial }: { product: ProductView; initial?: string }) {
  const [text, setText] = useState(initial ?? null);
  const download = useAction();
  const s = text === null ? null : summary(text);
  return (
    <Section title="Revocation list">
      <p>
        The signed list of this product's revoked licenses and freed machines. Download it to carry it to offline or air-gapped machines; your app imports it with{' '}
        <code>importRevocationList</code>.
      </p>
      <Alert kind="error">{download.error}</Alert>
      {s ? (
        <Facts
          items={[
            ['Sequence number', String(s.seq)],
            ['Signed', <DateTime value={new Date(s.issuedAt * 1000).toISOString()} />],
            ['Revoked licenses', String(s.licenses)],
            ['Freed machines', String(s.machines)],
          ]}
        />
      ) : null}
      <Button
        variant="secondary"
        busy={download.busy}
        onClick={() =>
          download.run(async () => {
            // Fetched again at the click, so the file is the current list even if the page is old.
            const current = await api.revocations.get(product.id);
            setText(current);
            saveBlob(new Blob([current], { type: 'text/plain' }), `${product.id}.rvl1`);
          })
        }
      >
        Download the revocation list
      </Button>
    </Section>
  );
}
