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
