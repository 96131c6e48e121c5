// A destructive action behind the browser's own confirmation dialog (keyboard-usable everywhere).
import type { ComponentChildren } from 'preact';

export function ConfirmButton(props: { question: string; label: string; onConfirmed(): void; children: ComponentChildren }) {
  return (
    <button
      type="button"
      class="danger small"
      aria-label={props.label}
      onClick={() => {
        if (window.confirm(props.question)) props.onConfirmed();
      }}
    >
      {props.children}
    </button>
  );
}
