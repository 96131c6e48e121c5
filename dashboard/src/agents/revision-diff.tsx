// Two revisions of an agent side by side as one diff: lines removed (−) and added (+), with a few
// lines of context around each change and the unchanged stretches folded. Each line is a block of
// its own (the newline is the block's end, so copying the diff keeps its lines).
import { useState } from 'preact/hooks';
import type { Client, RevisionList } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { LoadedView } from '../ui/states.tsx';
import { useLoad } from '../ui/use-load.ts';
import { lineDiff, type DiffLine } from './line-diff.ts';

const CONTEXT = 3;

/** Folds runs of unchanged lines longer than the context on both sides into one marker. */
function withContext(lines: DiffLine[]): (DiffLine | { kind: 'fold'; count: number })[] {
  const near = lines.map((_, index) => lines.slice(Math.max(0, index - CONTEXT), index + CONTEXT + 1).some((line) => line.kind !== 'same'));
  const shown: (DiffLine | { kind: 'fold'; count: number })[] = [];
  lines.forEach((line, index) => {
    if (near[index]) shown.push(line);
    else if (shown.at(-1)?.kind === 'fold') (shown.at(-1) as { count: number }).count++;
    else shown.push({ kind: 'fold', count: 1 });
  });
  return shown;
}

const SIGN = { same: ' ', removed: '−', added: '+' } as const;

async function bundleTexts(client: Client, agentName: string, from: number, to: number, signal: AbortSignal) {
  const [before, after] = await Promise.all([
    client.agents.revision(agentName, from, { signal }),
    client.agents.revision(agentName, to, { signal }),
  ]);
  return { before: JSON.stringify(before.bundle, null, 2), after: JSON.stringify(after.bundle, null, 2) };
}

function RevisionSelect(props: { id: string; label: string; numbers: number[]; value: number; onChange: (value: number) => void }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(event) => props.onChange(Number(event.currentTarget.value))}>
        {props.numbers.map((number) => (
          <option key={number} value={number}>
            {number}
          </option>
        ))}
      </select>
    </div>
  );
}

export function RevisionDiff({ agentName, revisions }: { agentName: string; revisions: RevisionList['revisions'] }) {
  const numbers = revisions.map((revision) => revision.revision).sort((a, b) => a - b);
  const [from, setFrom] = useState(numbers.at(-2) ?? numbers[0]!);
  const [to, setTo] = useState(numbers.at(-1)!);
  if (numbers.length < 2) return <p>One revision only: deploy again to compare.</p>;
  return (
    <div>
      <div class="row compact">
        <RevisionSelect id="diff-from" label="From revision" numbers={numbers} value={from} onChange={setFrom} />
        <RevisionSelect id="diff-to" label="To revision" numbers={numbers} value={to} onChange={setTo} />
      </div>
      <DiffView agentName={agentName} from={from} to={to} />
    </div>
  );
}

function DiffView({ agentName, from, to }: { agentName: string; from: number; to: number }) {
  const client = useClient();
  const loaded = useLoad((signal) => bundleTexts(client, agentName, from, to, signal), [client, agentName, from, to]);
  return (
    <LoadedView loaded={loaded} what="the revisions">
      {({ before, after }) => {
        const diff = lineDiff(before, after);
        const changed = diff?.filter((line) => line.kind !== 'same').length ?? 0;
        return !diff ? (
          <p>These revisions are too large to compare here.</p>
        ) : changed === 0 ? (
          <p>
            Revisions {from} and {to} have the same bundle.
          </p>
        ) : (
          <pre class="diff" role="region" aria-label={`Changes from revision ${from} to ${to}`} tabIndex={0}>
            {withContext(diff).map((line, index) =>
              line.kind === 'fold' ? (
                <span key={index} class="diff-fold">
                  {`  … ${line.count} unchanged ${line.count === 1 ? 'line' : 'lines'}`}
                </span>
              ) : (
                <span key={index} class={`diff-${line.kind}`}>
                  {line.kind !== 'same' && <span class="visually-hidden">{line.kind === 'added' ? 'added: ' : 'removed: '}</span>}
                  {`${SIGN[line.kind]} ${line.text}`}
                </span>
              ),
            )}
          </pre>
        );
      }}
    </LoadedView>
  );
}
