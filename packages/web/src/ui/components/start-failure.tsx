import type { ComponentChildren } from 'preact';
import { Button } from './button.js';

/**
 * The whole page when an app cannot start (the server unreachable, no portal at this address): what
 * happened, and a button to try again when trying again can help.
 */
export function StartFailure({ title, children, retry }: { title: string; children: ComponentChildren; retry: boolean }) {
  return (
    <main class="center-page" id="main">
      <div class="center-card" role="alert">
        <h1>{title}</h1>
        <p>{children}</p>
        {retry ? (
          <Button variant="primary" onClick={() => location.reload()}>
            Try again
          </Button>
        ) : null}
      </div>
    </main>
  );
}
