// A page's actions (create, delete, send...): each clears the last failure, runs, and keeps its own
// failure for the page to show (a ProblemView with the problem's title and trace id).
import { useState } from 'preact/hooks';

export function useAction(): { error: unknown; run: (action: () => Promise<unknown>) => Promise<void> } {
  const [error, setError] = useState<unknown>(undefined);
  const run = async (action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    }
  };
  return { error, run };
}

/** A copy of `set` with `item` in it or not: what a checkbox of a chosen set changes. */
export function toggled<T>(set: ReadonlySet<T>, item: T, on: boolean): Set<T> {
  const next = new Set(set);
  if (on) next.add(item);
  else next.delete(item);
  return next;
}
