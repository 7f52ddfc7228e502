import type { H3 } from 'h3';

/** The work each app still runs after answering (background e-mails), keyed by app. */
const pendingByApp = new WeakMap<object, Set<Promise<void>>>();

/** Runs `work` after the answer: failures go to `logError`, and {@link settled} waits for it. */
export type AfterAnswer = (msg: string, work: () => Promise<void>) => void;

/**
 * A tracker for one app's background work; `attach` ties it to the app once it exists.
 *
 * `work` starts on the next turn of the event loop (`setImmediate`), never inside the handler: the
 * handler's answer is handed to the socket in the promise jobs that follow it, so a lookup that a
 * known address makes (the store read, building a link) costs the answer nothing, and known and
 * unknown addresses answer alike.
 */
export function createAfterAnswer(logError: (msg: string, error: unknown) => void): { afterAnswer: AfterAnswer; attach(app: H3): void } {
  const pending = new Set<Promise<void>>();
  return {
    afterAnswer(msg, work) {
      const running: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(work)
        .catch((error: unknown) => logError(msg, error))
        .finally(() => pending.delete(running));
      pending.add(running);
    },
    attach(app) {
      pendingByApp.set(app, pending);
    },
  };
}

/**
 * Resolves once the work `app` started after its answers (sign-in and portal link e-mails) has
 * ended, including work started meanwhile. `listen`'s `close()` waits for it, so a shutdown
 * right after a link request still sends the e-mail.
 *
 * @example
 * await settled(app); // every e-mail the answered requests started has been handed to the mailer
 */
export async function settled(app: H3): Promise<void> {
  const pending = pendingByApp.get(app);
  while (pending !== undefined && pending.size > 0) await Promise.allSettled([...pending]);
}
