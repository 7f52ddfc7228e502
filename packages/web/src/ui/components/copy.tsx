import type { ComponentChildren } from 'preact';
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

/**
 * An address with a line-break opportunity after each `/`, `?`, `&` and `=`, so a long one wraps
 * between its parts and never inside an ID.
 */
export function Address({ value }: { value: string }) {
  const parts: ComponentChildren[] = [];
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    if ('/?&='.includes(value[i]!) && i + 1 < value.length && value[i + 1] !== '/') {
      parts.push(value.slice(start, i + 1), <wbr key={i} />);
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return <>{parts}</>;
}

/** A value shown in full in a monospaced, selectable box with a copy button; `address` wraps a URL between its parts. */
export function CopyField({ value, what, address = false }: { value: string; what: string; address?: boolean }) {
  return (
    <div class="copy-field">
      <code class={address ? 'mono address' : 'mono'}>{address ? <Address value={value} /> : value}</code>
      <CopyButton value={value} what={what} />
    </div>
  );
}

/** An ID (`lic_…`), kept on one line, with a button that copies it. */
export function Id({ value, what }: { value: string; what: string }) {
  return (
    <span class="id-copy">
      <code class="id">{value}</code>
      <CopyButton value={value} what={what} />
    </span>
  );
}
