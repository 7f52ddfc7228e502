import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | null;
  error: Error | null;
  loading: boolean;
  reload: () => void;
  set: (data: T) => void;
}

/**
 * Runs `load` when `deps` change; keeps the previous data while reloading (no flash, no shift).
 * With `initial` (data a parent already loaded) the first load is skipped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], initial?: T): Loaded<T> {
  const [data, setData] = useState<T | null>(initial ?? null);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(initial === undefined);
  const [tick, setTick] = useState(0);
  const skip = useRef(initial !== undefined);
  useEffect(() => {
    if (skip.current) {
      skip.current = false;
      return undefined;
    }
    let live = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (err: Error) => {
        if (!live) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload, set: setData };
}

/**
 * True once every load has answered (data or error): a page renders what sits below its lists only
 * then, so nothing moves when the data arrives (no layout shift).
 */
export function settled(...loads: readonly Pick<Loaded<unknown>, 'data' | 'error'>[]): boolean {
  return loads.every((l) => l.data !== null || l.error !== null);
}

/** A button's action: whether it runs, and the message of its last failure. */
export interface Action {
  /** True while the action runs (the button shows it and takes no second click). */
  busy: boolean;
  /** The last run's failure, as the API's message; cleared when the action runs again. */
  error: string | null;
  /** Runs `action`; a failure is kept in `error`, never thrown. */
  run: (action: () => Promise<void>) => Promise<void>;
}

/** The busy flag and failure message of a button's action, shared by every page's buttons. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
