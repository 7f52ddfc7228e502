import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { apiFieldRefusal, fieldMessage, refusalMessage } from '../field-messages.js';
import { Alert } from './alert.js';
import { Button } from './button.js';
import { FieldErrorsContext, type FieldErrors } from './field.js';

/** A problem with one field found by the page itself (a price map line it cannot read): shown under that field. */
export class FieldProblem extends Error {
  /** The field's key: its `name`. */
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'FieldProblem';
    this.field = field;
  }

  static is(error: unknown): error is FieldProblem {
    return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'FieldProblem';
  }
}

export interface FormProps {
  /** Resolves when done; a thrown error's message (the API's) is shown under its field, or above the button. */
  onSubmit: () => Promise<void> | void;
  submitLabel: ComponentChildren;
  children: ComponentChildren;
  /** Accessible name of the form. */
  label?: string;
  variant?: 'primary' | 'danger' | 'secondary';
  extraActions?: ComponentChildren;
  class?: string;
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const isControl = (el: Element): el is Control => el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
const keyOf = (el: Control) => el.name || el.id;
const labelOf = (el: Control) => el.labels?.[0]?.textContent?.trim() || el.getAttribute('aria-label') || el.name;

/** Every field the browser finds invalid, with the message for it, in the form's order. */
function invalidFields(form: HTMLFormElement): [Control, string][] {
  const found: [Control, string][] = [];
  for (const el of Array.from(form.elements)) {
    if (!isControl(el) || !el.willValidate || el.validity.valid) continue;
    const message = fieldMessage({
      label: labelOf(el),
      type: el instanceof HTMLSelectElement ? 'select' : el instanceof HTMLTextAreaElement ? 'textarea' : el.type,
      validity: el.validity,
      ...(el instanceof HTMLInputElement ? { min: el.min, max: el.max, ...(el.maxLength >= 0 ? { maxLength: el.maxLength } : {}) } : {}),
      ...(el.dataset.rule ? { rule: el.dataset.rule } : {}),
    });
    if (message) found.push([el, message]);
  }
  return found;
}

/** The field of the form a refusal is about, and the message to show under it; null when none of its fields is named. */
function placeRefusal(form: HTMLFormElement, error: unknown): [Control, string] | null {
  if (FieldProblem.is(error)) {
    const el = Array.from(form.elements).find((e): e is Control => isControl(e) && keyOf(e) === error.field);
    return el ? [el, error.message] : null;
  }
  if (!ApiError.is(error) || error.code !== 'invalid_request') return null;
  const refusal = apiFieldRefusal(error.message);
  if (!refusal) return null;
  for (const path of refusal.paths) {
    const el = Array.from(form.elements).find((e): e is Control => isControl(e) && e.name === path);
    if (el) return [el, refusalMessage(labelOf(el), refusal.problem)];
  }
  return null;
}

/**
 * A form that runs `onSubmit` once at a time and keeps the fields. It checks the fields itself
 * first (required, e-mail, numbers, a field's `rule`) and says what is wrong under each field,
 * focusing the first; a refusal of the API naming a field is shown under that field in the same
 * words, any other error above the button.
 */
export function Form({ onSubmit, submitLabel, children, label, variant = 'primary', extraActions, class: cls }: FormProps) {
  const [busy, setBusy] = useState(false);
  // Set at once on submit: a second submit before `busy` is on the page (Enter pressed twice) is ignored.
  const running = useRef(false);
  const [error, setError] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const context = useMemo<FieldErrors>(
    () => ({
      errors,
      clear: (key) =>
        setErrors((all) => {
          const { [key]: _, ...rest } = all;
          return rest;
        }),
    }),
    [errors],
  );
  // Focus moves to the first field with a message once that message is on the page, so a screen
  // reader reads the field with it.
  const focusNext = useRef<Control | null>(null);
  useEffect(() => {
    focusNext.current?.focus();
    focusNext.current = null;
  });
  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy || running.current) return;
    const form = e.currentTarget as HTMLFormElement;
    setError(null);
    const invalid = invalidFields(form);
    setErrors(Object.fromEntries(invalid.map(([el, message]) => [keyOf(el), message])));
    if (invalid.length > 0) {
      focusNext.current = invalid[0]![0];
      return;
    }
    running.current = true;
    setBusy(true);
    try {
      await onSubmit();
    } catch (err) {
      const placed = placeRefusal(form, err);
      if (placed) {
        focusNext.current = placed[0];
        setErrors({ [keyOf(placed[0])]: placed[1] });
      } else {
        setError((err as Error).message || 'Something went wrong.');
      }
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  return (
    <FieldErrorsContext.Provider value={context}>
      <form class={`form${cls ? ` ${cls}` : ''}`} onSubmit={submit} aria-label={label} noValidate>
        {children}
        <Alert kind="error">{error}</Alert>
        <div class="actions">
          <Button type="submit" variant={variant} busy={busy}>
            {submitLabel}
          </Button>
          {extraActions}
        </div>
      </form>
    </FieldErrorsContext.Provider>
  );
}
