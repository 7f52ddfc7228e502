import { useState } from 'preact/hooks';
import { Button } from './button.js';

/** Copies `value` to the clipboard and says so (politely) to screen readers. */
export function CopyButton({ value, label = 'Copy', what }: { value: string; label?: string; what: string }) {
  const [done, setDone] = useState<'' | 'copied' | 'failed'>('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setDone('copied');
    } catch {
      setDone('failed');
    }
    setTimeout(() => setDone(''), 2500);
  };
  return (
    <span class="copy">
      <Button variant="secondary" class="btn-small" onClick={copy} aria-label={`${label} ${what}`}>
        {label}
      </Button>
      <span role="status" class="copy-status">
        {done === 'copied' ? 'Copied' : done === 'failed' ? 'Select the text and copy it' : ''}
      </span>
    </span>
  );
}

/** A value shown in full in a monospaced, selectable box with a copy button. */
export function CopyField({ value, what }: { value: string; what: string }) {
  return (
    <div class="copy-field">
      <code class="mono">{value}</code>
      <CopyButton value={value} what={what} />
    </div>
  );
}
