// Data for a page: load on mount and when the dependencies change, abort what is stale, reload on demand.

import { useCallback, useEffect, useRef, useState, type DependencyList } from 'react';
import { ApiError } from '../api/errors';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** The route is not on this server (404 "No admin route"): a feature it does not have. */
  notAvailable: boolean;
  reload: () => void;
}

export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, deps: DependencyList): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const ctrl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(ctrl.signal).then(
      (data) => {
        if (!ctrl.signal.aborted) setState({ data, loading: false });
      },
      (error: unknown) => {
        if (!ctrl.signal.aborted) setState({ error, loading: false });
      },
    );
    return () => ctrl.abort();
    // The caller's deps decide when to refetch (fetcher is a new closure on every render).
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  const notAvailable = state.error instanceof ApiError && state.error.isNotAvailable;
  return { data: state.data, error: state.error, loading: state.loading, notAvailable, reload };
}

/** Calls `fn` every `ms` while `active`. */
export function useInterval(fn: () => void, ms: number, active = true): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    if (!active) return undefined;
    const t = setInterval(() => ref.current(), ms);
    return () => clearInterval(t);
  }, [ms, active]);
}
