// Copies a value (a key, a URL) to the clipboard and says so where a screen reader hears it.
import { useState } from 'preact/hooks';

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span class="copy">
      <button type="button" class="secondary" aria-label={label} onClick={() => void copy()}>
        Copy
      </button>
      <span class="copy-status" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select and copy by hand' : ''}
      </span>
    </span>
  );
}
