import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'link';

export interface ButtonProps {
  variant?: ButtonVariant;
  /** May return a promise: until it settles a second press does nothing (even before `busy` is shown). */
  onClick?: (event: MouseEvent) => unknown;
  class?: string;
  id?: string;
  'aria-label'?: string;
  'aria-describedby'?: string;
  type?: 'button' | 'submit';
  /**
   * While true the button is announced as busy and unavailable (aria-busy, aria-disabled) and
   * ignores presses, but stays focusable: a native `disabled` would drop the keyboard focus to the
   * page's start.
   */
  busy?: boolean;
  disabled?: boolean;
  children: ComponentChildren;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

/** A native button (keyboard and screen readers for free) in one of four looks. */
export function Button({ variant = 'secondary', type = 'button', busy = false, disabled, onClick, children, class: cls, ...rest }: ButtonProps) {
  // Set at once by a press whose action returns a promise, so a second press in the same moment
  // (before the page shows `busy`) does not run the action again.
  const running = useRef(false);
  const press = (event: MouseEvent) => {
    if (busy || running.current) {
      // Also keeps a submit button from submitting its form (Enter in a field presses it too).
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    const result = onClick?.(event);
    if (isThenable(result)) {
      running.current = true;
      const done = () => {
        running.current = false;
      };
      result.then(done, done);
    }
  };
  return (
    <button
      {...rest}
      type={type}
      class={`btn btn-${variant}${cls ? ` ${String(cls)}` : ''}`}
      disabled={disabled === true}
      aria-disabled={busy && disabled !== true ? 'true' : undefined}
      aria-busy={busy ? 'true' : undefined}
      onClick={press}
    >
      {children}
    </button>
  );
}
