import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Alert } from './alert.js';
import { Button } from './button.js';

export interface FormProps {
  /** Resolves when done; a thrown error's message (the API's) is shown above the button. */
  onSubmit: () => Promise<void> | void;
  submitLabel: ComponentChildren;
  children: ComponentChildren;
  /** Accessible name of the form. */
  label?: string;
  variant?: 'primary' | 'danger' | 'secondary';
  extraActions?: ComponentChildren;
  class?: string;
}

/** A form that runs `onSubmit` once at a time, shows the API's error message and keeps the fields. */
export function Form({ onSubmit, submitLabel, children, label, variant = 'primary', extraActions, class: cls }: FormProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await onSubmit();
    } catch (err) {
      setError((err as Error).message || 'Something went wrong.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class={`form${cls ? ` ${cls}` : ''}`} onSubmit={submit} aria-label={label} noValidate={false}>
      {children}
      <Alert kind="error">{error}</Alert>
      <div class="actions">
        <Button type="submit" variant={variant} busy={busy}>
          {submitLabel}
        </Button>
        {extraActions}
      </div>
    </form>
  );
}
