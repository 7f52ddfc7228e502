import { MySqlStoreError } from './errors.js';

/**
 * The store's view of whether the database answers, so a silent network partition fails fast
 * instead of holding every request for a full statement timeout.
 *
 * - Closed (the database answers): calls run. A statement without an answer for `suspectAfterMs`,
 *   or a connection failure, starts one probe (a fresh connection and `SELECT 1`, bounded by the
 *   connect timeout and `suspectAfterMs`). A slow query or a lock wait passes the probe and keeps
 *   waiting. A probe that fails while other statements are being answered (any answer, a result
 *   or a server error, between the probe's start and its failure) does not open the circuit: on a
 *   starved machine the probe's timers fire late, before the answers already received are read.
 *   Any answer also closes an open circuit: a probe begun during an outage may fail after it ended.
 * - Open (a probe failed): every call fails at once with
 *   `store_unavailable`, statements in flight are aborted with `store_timeout`, and a probe runs
 *   every `probeEveryMs` in the background until one succeeds, which closes the circuit.
 */
export interface Circuit {
  /** Throws `store_unavailable` while the database is known to be down. */
  check(): void;
  /** The database failed to answer (a failed probe): open the circuit. */
  trip(cause: unknown): void;
  /** Something looks wrong (a slow statement, a broken connection, a failed connect): probe now, unless a probe runs. */
  suspect(): void;
  /** A statement got the database's answer (a result or a server error, not a network failure). */
  answered(): void;
  /** Registers an in-flight statement's abort; returns the function that unregisters it. */
  track(abort: (error: MySqlStoreError) => void): () => void;
  /** Whether the circuit is open (the database is known down). */
  readonly open: boolean;
  /** Stops the background probes. */
  close(): void;
}

export function createCircuit(options: { probe: () => Promise<void>; probeEveryMs: number }): Circuit {
  let open = false;
  let probing = false;
  let closed = false;
  let lastCause: unknown = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** Answers received so far (a probe compares the count at its start and at its failure). */
  let answers = 0;
  const inFlight = new Set<(error: MySqlStoreError) => void>();

  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      runProbe();
    }, options.probeEveryMs);
    timer.unref?.();
  };

  const runProbe = () => {
    if (probing || closed) return;
    probing = true;
    const answersBefore = answers;
    options
      .probe()
      .then(
        () => {
          open = false;
          lastCause = null;
        },
        // Judged once the event loop has read what arrived meanwhile (setImmediate runs after its
        // poll phase): a probe timer that fired late, after a stall of this process, comes before
        // the answers already waiting on the sockets, which show the database is answering.
        (error: unknown) =>
          new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
            if (open || answers === answersBefore) trip(error);
          }),
      )
      .finally(() => {
        probing = false;
        if (open) schedule();
      });
  };

  const trip = (cause: unknown) => {
    lastCause = cause;
    if (!open) {
      open = true;
      const aborted = new MySqlStoreError('store_timeout', 'mysql store: the database stopped answering (a probe on a fresh connection failed)', { cause });
      for (const abort of [...inFlight]) abort(aborted);
      inFlight.clear();
    }
    schedule();
  };

  return {
    get open() {
      return open;
    },
    check() {
      if (open) {
        throw new MySqlStoreError('store_unavailable', 'mysql store: database unreachable (known down; probing it in the background)', { cause: lastCause });
      }
    },
    trip,
    answered() {
      answers++;
      // An answer proves the database reachable: a probe that failed during an outage that has
      // since ended (its connect timed out after the network came back) opened a circuit this closes.
      if (open) {
        open = false;
        lastCause = null;
      }
    },
    suspect() {
      if (!open) runProbe();
    },
    track(abort) {
      inFlight.add(abort);
      return () => inFlight.delete(abort);
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
