import type { ComponentChildren } from 'preact';

/**
 * A message region. `error` is announced at once (role=alert); `info` and `success` politely
 * (role=status). Always rendered so a message appearing later is announced.
 */
export function Alert({ kind = 'info', children }: { kind?: 'info' | 'success' | 'error' | 'warning'; children?: ComponentChildren }) {
  const empty = children === undefined || children === null || children === false || children === '';
  return (
    <div role={kind === 'error' ? 'alert' : 'status'} class={empty ? 'alert-slot' : `alert alert-${kind}`}>
      {empty ? null : children}
    </div>
  );
}
