import type { ComponentChildren } from 'preact';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'link';

export interface ButtonProps {
  variant?: ButtonVariant;
  onClick?: (event: MouseEvent) => void;
  class?: string;
  id?: string;
  'aria-label'?: string;
  'aria-describedby'?: string;
  type?: 'button' | 'submit';
  /** While true the button is disabled and announced as busy. */
  busy?: boolean;
  disabled?: boolean;
  children: ComponentChildren;
}

/** A native button (keyboard and screen readers for free) in one of four looks. */
export function Button({ variant = 'secondary', type = 'button', busy = false, disabled, children, class: cls, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      class={`btn btn-${variant}${cls ? ` ${String(cls)}` : ''}`}
      disabled={disabled === true || busy}
      aria-busy={busy ? 'true' : undefined}
    >
      {children}
    </button>
  );
}
