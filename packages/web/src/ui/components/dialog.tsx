import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { Alert } from './alert.js';
import { Button, type ButtonVariant } from './button.js';

export interface DialogProps {
  open: boolean;
  /**
   * Which opening this is (a new number each time the dialog is asked to open): a reopening asked
   * for before the previous close's `close` event arrived is kept open, not closed by that event.
   */
  opening?: number;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}

/**
 * A modal dialog on the native `<dialog>`: focus moves into it and is trapped while open, Escape
 * closes it, and focus returns to the control that opened it.
 */
export function Dialog({ open, opening = 0, title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const shown = useRef<number | null>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      shown.current = opening;
    }
    if (!open && dialog.open) dialog.close();
  }, [open, opening]);
  // The `close` event comes in a task of its own, and Chromium runs input first: Escape then Enter
  // on the opening button can ask for a new opening before the event of the first close arrives.
  // That event closed the opening shown before, not the one asked for since.
  const closed = () => {
    if (ref.current?.open || (open && opening !== shown.current)) return;
    onClose();
  };
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={`${id}-title`} onClose={closed}>
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
  // 0 while closed, else which opening this is (see Dialog's `opening`).
  const [opening, setOpening] = useState(0);
  const openings = useRef(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const close = () => setOpening(0);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      close();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button variant={variant} disabled={disabled === true} onClick={() => setOpening(++openings.current)}>
        {label}
      </Button>
      <Dialog open={opening > 0} opening={opening} title={title} onClose={() => { close(); setError(null); }}>
        <div class="dialog-body">{children}</div>
        <Alert kind="error">{error}</Alert>
        <div class="actions">
          <Button variant={variant} busy={busy} onClick={confirm}>
            {confirmLabel}
          </Button>
          <Button onClick={close}>Cancel</Button>
        </div>
      </Dialog>
    </>
  );
}
