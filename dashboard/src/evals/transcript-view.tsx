// One side of a case's comparison: what a revision did with the case's input, its reply and the tools it
// called in order, each call marked when an eval's replay answered it from the recording (`replayed`) or
// found no recorded call to answer it (`unmatched`, a tool error the model read or a live run).
import type { ComponentChildren } from 'preact';
import type { EvalRunView } from '@agent-service/sdk';

type Transcript = NonNullable<EvalRunView['cases'][number]['transcript']>;

function pretty(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

interface Props {
  /** The column's heading: which revision, or the recorded session. */
  title: string;
  transcript: Transcript | null;
  /** Shown in place of a transcript there is none of. */
  none: ComponentChildren;
  /** The baseline is drawn apart from the candidate (a dashed border). */
  recorded?: boolean;
  children?: ComponentChildren;
}

export function TranscriptView({ title, transcript, none, recorded, children }: Props) {
  return (
    <section class={recorded ? 'message summary' : 'message assistant'} aria-label={title}>
      <h4 class="message-role">{title}</h4>
      {children}
      {transcript === null ? (
        <p class="muted-label">{none}</p>
      ) : (
        <>
          {transcript.toolCalls.length > 0 && (
            <ol class="tool-calls" aria-label="Tool calls">
              {transcript.toolCalls.map((call, index) => (
                <li key={index} class="part-tool">
                  Tool <code>{call.name}</code>
                  {call.replayed && <span class="badge ok">replayed</span>}
                  {call.unmatched && <span class="badge bad">unmatched</span>}
                  <details>
                    <summary>Input</summary>
                    <pre>{pretty(call.input)}</pre>
                  </details>
                </li>
              ))}
            </ol>
          )}
          {transcript.reply ? <p class="message-text">{transcript.reply}</p> : <p class="muted-label">No reply text.</p>}
          {transcript.json !== undefined && (
            <details>
              <summary>JSON reply</summary>
              <pre>{pretty(transcript.json)}</pre>
            </details>
          )}
        </>
      )}
    </section>
  );
}
