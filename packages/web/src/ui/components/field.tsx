import { createContext, type ComponentChildren } from 'preact';
import { useContext, useId } from 'preact/hooks';

/**
 * The messages of the form around a field, by field key (the field's `name`, which is the API's
 * field name, else its id), and how a field clears its own once it is edited. Given by `Form`.
 */
export interface FieldErrors {
  errors: Readonly<Record<string, string>>;
  clear(key: string): void;
}

export const FieldErrorsContext = createContext<FieldErrors | null>(null);

/** The message of this field, if its form has one, and the clear to call when the field is edited. */
function useFieldError(key: string): { error: string | undefined; clear: () => void } {
  const form = useContext(FieldErrorsContext);
  return { error: form?.errors[key], clear: () => form?.clear(key) };
}

/** `aria-describedby` of a field: its error first (read before the hint), then its hint. */
function describedBy(id: string, hint: ComponentChildren, error: string | undefined): string | undefined {
  const ids = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

interface FieldShellProps {
  label: ComponentChildren;
  hint?: ComponentChildren;
  error?: string | undefined;
  id: string;
  children: ComponentChildren;
}

function FieldShell({ label, hint, error, id, children }: FieldShellProps) {
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      {children}
      {error ? (
        <p class="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : null}
      {hint ? <p class="hint" id={`${id}-hint`}>{hint}</p> : null}
    </div>
  );
}

/** Native input attributes a field may pass through. */
interface InputAttributes {
  required?: boolean;
  disabled?: boolean;
  readOnly?: boolean;
  /** The API's name of the field: a refusal of the API naming it is shown under this field. */
  name?: string;
  placeholder?: string;
  autoComplete?: string;
  pattern?: string;
  min?: string | number;
  max?: string | number;
  step?: string | number;
  maxLength?: number;
  inputMode?: 'text' | 'numeric' | 'decimal' | 'email' | 'url' | 'search';
  spellcheck?: boolean;
}

export interface TextFieldProps extends InputAttributes {
  type?: 'text' | 'email' | 'number' | 'url' | 'date' | 'search' | 'password';
  label: ComponentChildren;
  hint?: ComponentChildren;
  /** What a valid value is, in a sentence: the message when the value does not fit `pattern`. */
  rule?: string;
  value: string;
  onValue: (value: string) => void;
}

/** A labelled input; its hint and its error are tied to it with aria-describedby. */
export function TextField({ label, hint, rule, value, onValue, type = 'text', ...rest }: TextFieldProps) {
  const id = useId();
  const { error, clear } = useFieldError(rest.name ?? id);
  return (
    <FieldShell label={label} hint={hint} error={error} id={id}>
      <input
        {...rest}
        id={id}
        type={type as 'text'}
        value={value}
        data-rule={rule}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onInput={(e) => {
          if (error) clear();
          onValue((e.currentTarget as HTMLInputElement).value);
        }}
      />
    </FieldShell>
  );
}

export interface TextAreaFieldProps {
  required?: boolean;
  rows?: number;
  placeholder?: string;
  spellcheck?: boolean;
  /** The API's name of the field (see {@link TextFieldProps}). */
  name?: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  value: string;
  onValue: (value: string) => void;
}

export function TextAreaField({ label, hint, value, onValue, ...rest }: TextAreaFieldProps) {
  const id = useId();
  const { error, clear } = useFieldError(rest.name ?? id);
  return (
    <FieldShell label={label} hint={hint} error={error} id={id}>
      <textarea
        {...rest}
        id={id}
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onInput={(e) => {
          if (error) clear();
          onValue((e.currentTarget as HTMLTextAreaElement).value);
        }}
      />
    </FieldShell>
  );
}

/** A choice among `options`: `onValue` receives one of their values (typed as they are, e.g. a union of literals). */
export interface SelectFieldProps<V extends string = string> {
  label: ComponentChildren;
  hint?: ComponentChildren;
  value: V;
  onValue: (value: V) => void;
  options: readonly { value: V; label: string }[];
  required?: boolean;
  disabled?: boolean;
  name?: string;
}

export function SelectField<V extends string = string>({ label, hint, value, onValue, options, ...rest }: SelectFieldProps<V>) {
  const id = useId();
  const { error, clear } = useFieldError(rest.name ?? id);
  return (
    <FieldShell label={label} hint={hint} error={error} id={id}>
      <select
        {...rest}
        id={id}
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onChange={(e) => {
          if (error) clear();
          onValue((e.currentTarget as HTMLSelectElement).value as V);
        }}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}

export function CheckboxField({ label, checked, onChecked, hint }: { label: ComponentChildren; checked: boolean; onChecked: (v: boolean) => void; hint?: ComponentChildren }) {
  const id = useId();
  return (
    <div class="field field-check">
      <input id={id} type="checkbox" checked={checked} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChecked((e.currentTarget as HTMLInputElement).checked)} />
      <label for={id}>{label}</label>
      {hint ? <p class="hint" id={`${id}-hint`}>{hint}</p> : null}
    </div>
  );
}
