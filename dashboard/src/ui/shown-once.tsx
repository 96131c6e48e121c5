// A value the service shows only once (a new key, a webhook's signing secret): said plainly, with a
// copy button, until the person dismisses it. It is never kept anywhere else by the page.
import { CopyButton } from './copy-button.tsx';

export function ShownOnce({ what, value, onDismiss }: { what: string; value: string; onDismiss(): void }) {
  return (
    <div class="once" role="region" aria-label={`New ${what}`}>
      <p>
        <strong>Copy the new {what} now: it is not shown again.</strong>
      </p>
      <p class="copy-row">
        <code>{value}</code>
        <CopyButton value={value} label={`Copy the new ${what}`} />
      </p>
      <button type="button" class="secondary" onClick={onDismiss}>
        I have copied it
      </button>
    </div>
  );
}
