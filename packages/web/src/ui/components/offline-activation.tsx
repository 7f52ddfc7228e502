import type { OfflineActivationInput, OfflineActivationResult } from '../types.js';
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { saveBlob } from '../download.js';
import './offline-activation.css';
import { Alert } from './alert.js';
import { CopyButton } from './copy.js';
import { Button } from './button.js';
import { SelectField, TextAreaField } from './field.js';
import { Form } from './form.js';

export interface OfflineActivationFormProps {
  /** Licenses the request may be activated on, when it carries no key; empty hides the choice. */
  licenses: readonly { id: string; label: string }[];
  /** The license chosen first (e.g. the page's own license). */
  initialLicense?: string;
  /** Sends `{ request, license? }` to the API and resolves with its answer. */
  activate: (input: OfflineActivationInput) => Promise<OfflineActivationResult>;
  /** Called after a certificate was issued (e.g. to reload the machine list). */
  onActivated?: (result: OfflineActivationResult) => void;
  /** Text above the form. */
  intro?: ComponentChildren;
}

/** The certificate's file name: what the SDK example's `import <file>` reads. */
export function certificateFileName(result: OfflineActivationResult): string {
  return `license-certificate-${result.fingerprint.slice(0, 12)}.txt`;
}

/**
 * Air-gapped activation: the customer (or vendor) pastes or uploads the machine's activation
 * request (`SVCREQ1.…`), the API activates the machine under the same rules as an online
 * activation, and the certificate comes back as a file to carry to the machine.
 */
export function OfflineActivationForm({ licenses, initialLicense, activate, onActivated, intro }: OfflineActivationFormProps) {
  const [request, setRequest] = useState('');
  const [license, setLicense] = useState(initialLicense ?? licenses[0]?.id ?? '');
  const [result, setResult] = useState<OfflineActivationResult | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const fileId = useId();

  const readFile = async (input: HTMLInputElement) => {
    setFileError(null);
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > 8192) {
      setFileError('This file is too large to be an activation request.');
      return;
    }
    // Called as `void readFile(...)` from the input's change: a file that cannot be read (moved or
    // deleted since it was chosen, no permission) is shown where the field's other errors are.
    try {
      setRequest((await file.text()).trim());
    } catch (err) {
      setFileError(`This file could not be read (${err instanceof Error ? err.message : String(err)}); choose it again or paste its text.`);
    }
  };

  if (result) {
    return (
      <div class="offline-result">
        <Alert kind="success">
          The machine is activated. Download the certificate file and carry it to the machine; the application imports it and works offline.
        </Alert>
        <div class="actions">
          <Button variant="primary" onClick={() => saveBlob(new Blob([`${result.certificate}\n`], { type: 'text/plain' }), certificateFileName(result))}>
            Download the certificate file
          </Button>
          <CopyButton value={result.certificate} what="certificate" label="Copy the certificate" />
          <Button onClick={() => { setResult(null); setRequest(''); }}>Activate another machine</Button>
        </div>
        <details>
          <summary>Show the certificate text</summary>
          <pre class="mono wrap">{result.certificate}</pre>
        </details>
      </div>
    );
  }
  return (
    <Form
      label="Activate a machine without internet"
      submitLabel="Activate and get the certificate"
      onSubmit={async () => {
        const answer = await activate({ request: request.trim(), ...(license ? { license } : {}) });
        setResult(answer);
        onActivated?.(answer);
      }}
    >
      {intro}
      <div class="field">
        <label for={fileId}>Activation request file</label>
        <input id={fileId} type="file" accept=".txt,.req,text/plain" aria-describedby={`${fileId}-hint`} onChange={(e) => void readFile(e.currentTarget as HTMLInputElement)} />
        <p class="hint" id={`${fileId}-hint`}>
          The file the application wrote on the machine, or paste its text below.
        </p>
      </div>
      <Alert kind="error">{fileError}</Alert>
      <TextAreaField label="Activation request" name="request" hint="Starts with SVCREQ1." rows={4} spellcheck={false} required value={request} onValue={setRequest} />
      {licenses.length > 1 ? (
        <SelectField
          label="License"
          hint="Used when the request does not carry the license key."
          value={license}
          onValue={setLicense}
          options={licenses.map((l) => ({ value: l.id, label: l.label }))}
        />
      ) : null}
    </Form>
  );
}
