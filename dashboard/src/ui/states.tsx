// What a page shows while it loads, when it failed, and when there is nothing yet.
import type { ComponentChildren } from 'preact';
import { ProblemView } from './problem-view.tsx';
import type { Loaded } from './use-load.ts';

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** Nothing here yet, and what to do about it. */
export function EmptyState({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      <div class="empty-next">{children}</div>
    </div>
  );
}

/** Draws `loaded` once there is data; loading and error states before that. */
export function LoadedView<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (data: T) => ComponentChildren }) {
  if (loaded.data === undefined) {
    if (loaded.error !== undefined) return <ProblemView error={loaded.error} />;
    return <Loading what={what} />;
  }
  return (
    <>
      {loaded.error !== undefined && <ProblemView error={loaded.error} />}
      {children(loaded.data)}
    </>
  );
}
