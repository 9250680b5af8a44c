// One user action (save, create, delete...): busy while it runs, its failure as a sentence to show, and whether it
// succeeded. The one copy of the busy/error pattern every form and button of the console uses.

import { useCallback, useRef, useState } from 'react';
import { describeError } from '../api/errors';

/** What useAction gives a component. */
export interface Action<A extends unknown[]> {
  /** Runs the action with these arguments; resolves to whether it succeeded (it never rejects). */
  run: (...args: A) => Promise<boolean>;
  /** True while a run is in progress: buttons show a spinner and refuse a second click. */
  busy: boolean;
  /** The last run's failure, described for a person; undefined once a new run starts. */
  error: string | undefined;
  /** A message of the component's own, such as a check that fails before the action runs. */
  setError: (error: string | undefined) => void;
}

/** Where runAction reports, apart from React (the hook passes its state setters; a test passes a recorder). */
export interface ActionReport {
  setBusy(busy: boolean): void;
  setError(error: string | undefined): void;
  /** The sentence for a failure. */
  describe(err: unknown): string;
}

/**
 * The busy/error protocol of one run: busy, error cleared, the action awaited, a failure described into the error,
 * busy cleared whatever happened. Resolves to whether the action succeeded.
 */
export async function runAction(action: () => Promise<unknown>, report: ActionReport): Promise<boolean> {
  report.setBusy(true);
  report.setError(undefined);
  try {
    await action();
    return true;
  } catch (err) {
    report.setError(report.describe(err));
    return false;
  } finally {
    report.setBusy(false);
  }
}

/**
 * Wraps an action for a component. The latest `action` and `describe` are the ones a run calls, so they may close
 * over the component's current state. `describe` defaults to describeError (api/errors.ts).
 */
export function useAction<A extends unknown[]>(
  action: (...args: A) => Promise<unknown>,
  describe: (err: unknown) => string = describeError,
): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const latest = useRef({ action, describe });
  latest.current = { action, describe };
  const run = useCallback(
    (...args: A) =>
      runAction(() => latest.current.action(...args), {
        setBusy,
        setError,
        describe: (err) => latest.current.describe(err),
      }),
    [],
  );
  return { run, busy, error, setError };
}
