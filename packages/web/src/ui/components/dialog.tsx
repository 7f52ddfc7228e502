import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { Alert } from './alert.js';
import { Button, type ButtonVariant } from './button.js';

export interface DialogProps {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}

/**
 * A modal dialog on the native `<dialog>`: focus moves into it and is trapped while open, Escape
 * closes it, and focus returns to the control that opened it.
 */
export function Dialog({ open, title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={`${id}-title`} onClose={onClose}>
      <h2 id={`${id}-title`}>{title}</h2>
      {open ? children : null}
    </dialog>
  );
}

export interface ConfirmButtonProps {
  /** Text of the button that opens the dialog. */
  label: ComponentChildren;
  /** Title of the dialog (a question). */
  title: string;
  /** What confirming means. */
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  variant?: ButtonVariant;
  disabled?: boolean;
}

/** A button that asks for confirmation in a dialog, runs the action and shows the API's error if it fails. */
export function ConfirmButton({ label, title, children, confirmLabel, onConfirm, variant = 'danger', disabled }: ConfirmButtonProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button variant={variant} disabled={disabled === true} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Dialog open={open} title={title} onClose={() => { setOpen(false); setError(null); }}>
        <div class="dialog-body">{children}</div>
        <Alert kind="error">{error}</Alert>
        <div class="actions">
          <Button variant={variant} busy={busy} onClick={confirm}>
            {confirmLabel}
          </Button>
          <Button onClick={() => setOpen(false)}>Cancel</Button>
        </div>
      </Dialog>
    </>
  );
}
