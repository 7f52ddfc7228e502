import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface FieldShellProps {
  label: ComponentChildren;
  hint?: ComponentChildren;
  id: string;
  children: ComponentChildren;
}

function FieldShell({ label, hint, id, children }: FieldShellProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint ? <p class="hint" id={`${id}-hint`}>{hint}</p> : null}
    </div>
  );
}

/** Native input attributes a field may pass through. */
interface InputAttributes {
  required?: boolean;
  disabled?: boolean;
  readOnly?: boolean;
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
  value: string;
  onValue: (value: string) => void;
}

/** A labelled input; the hint is tied to it with aria-describedby. */
export function TextField({ label, hint, value, onValue, type = 'text', ...rest }: TextFieldProps) {
  const id = useId();
  return (
    <FieldShell label={label} hint={hint} id={id}>
      <input
        {...rest}
        id={id}
        type={type as 'text'}
        value={value}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)}
      />
    </FieldShell>
  );
}

export interface TextAreaFieldProps {
  required?: boolean;
  rows?: number;
  placeholder?: string;
  spellcheck?: boolean;
  label: ComponentChildren;
  hint?: ComponentChildren;
  value: string;
  onValue: (value: string) => void;
}

export function TextAreaField({ label, hint, value, onValue, ...rest }: TextAreaFieldProps) {
  const id = useId();
  return (
    <FieldShell label={label} hint={hint} id={id}>
      <textarea
        {...rest}
        id={id}
        value={value}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onInput={(e) => onValue((e.currentTarget as HTMLTextAreaElement).value)}
      />
    </FieldShell>
  );
}

export interface SelectFieldProps {
  label: ComponentChildren;
  hint?: ComponentChildren;
  value: string;
  onValue: (value: string) => void;
  options: readonly { value: string; label: string }[];
  required?: boolean;
  disabled?: boolean;
  name?: string;
}

export function SelectField({ label, hint, value, onValue, options, ...rest }: SelectFieldProps) {
  const id = useId();
  return (
    <FieldShell label={label} hint={hint} id={id}>
      <select {...rest} id={id} value={value} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value)}>
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
