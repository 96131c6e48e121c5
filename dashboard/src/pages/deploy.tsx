// Deploy a bundle from the editor (or a file opened into it). The server checks everything; a
// refused bundle's errors are shown where they are: listed with their line and column (a button
// moves the cursor there) and under their lines in a highlighted copy of what was sent.
import { useEffect, useRef, useState } from 'preact/hooks';
import { parse } from 'jsonc-parser';
import { APIError, type Client, type Deployed } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { STARTER_BUNDLE } from '../deploy/starter-bundle.ts';
import { locateErrors, type LocatedError } from '../deploy/locate-errors.ts';
import { Link, navigate } from '../router.tsx';
import { JsoncView } from '../ui/jsonc-highlight.tsx';
import { ProblemView } from '../ui/problem-view.tsx';

interface Refused {
  text: string;
  errors: LocatedError[];
  error: APIError;
}

function fieldErrorsOf(error: unknown): { path: string; message: string }[] | undefined {
  if (!(error instanceof APIError) || error.status !== 400) return undefined;
  const body = error.body as { ok?: boolean; errors?: { path: string; message: string }[] } | undefined;
  return body?.ok === false && Array.isArray(body.errors) ? body.errors : undefined;
}

async function initialText(client: Client, agent: string | undefined): Promise<string> {
  if (!agent) return STARTER_BUNDLE;
  const current = await client.agents.retrieve(agent);
  return `${JSON.stringify(current.bundle, null, 2)}\n`;
}

export function DeployPage({ agent }: { agent: string | undefined }) {
  const client = useClient();
  const editor = useRef<HTMLTextAreaElement>(null);
  const errorsHeading = useRef<HTMLHeadingElement>(null);
  const [text, setText] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState<Refused | undefined>(undefined);
  const [failure, setFailure] = useState<unknown>(undefined);
  const [deployed, setDeployed] = useState<Deployed | undefined>(undefined);

  // A refused deploy moves the focus (and the view) to its errors, so they are seen and heard.
  useEffect(() => {
    if (refused) errorsHeading.current?.focus();
  }, [refused]);

  useEffect(() => {
    initialText(client, agent).then(setText, (error: unknown) => {
      setFailure(error);
      setText(STARTER_BUNDLE);
    });
  }, [client, agent]);

  const deploy = async (event: Event) => {
    event.preventDefault();
    if (text === undefined) return;
    setBusy(true);
    setRefused(undefined);
    setFailure(undefined);
    setDeployed(undefined);
    try {
      setDeployed(await client.agents.deploy(text));
    } catch (error) {
      const fieldErrors = fieldErrorsOf(error);
      if (fieldErrors) setRefused({ text, errors: locateErrors(text, fieldErrors), error: error as APIError });
      else setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  const openFile = async (file: File | undefined) => {
    if (file) setText(await file.text());
  };

  const goTo = (located: LocatedError) => {
    const area = editor.current;
    if (!area || located.offset === undefined) return;
    area.focus();
    area.setSelectionRange(located.offset, located.offset);
  };

  const notes = new Map<number, string[]>();
  for (const located of refused?.errors ?? []) {
    if (located.line === undefined) continue;
    notes.set(located.line, [...(notes.get(located.line) ?? []), `↑ ${located.path || '(bundle)'}: ${located.message}`]);
  }
  const deployedName = deployed && text ? nameIn(text) : undefined;

  return (
    <>
      <h1>{agent ? `Deploy a new revision of ${agent}` : 'Deploy an agent'}</h1>
      <p>
        The bundle is JSONC: comments and trailing commas are fine. Its schema is at <a href="/schema/bundle.json">/schema/bundle.json</a>.
      </p>
      <form onSubmit={(event) => void deploy(event)}>
        <label for="bundle-file">Open a file</label>
        <input
          id="bundle-file"
          type="file"
          accept=".json,.jsonc,application/json"
          onChange={(event) => void openFile(event.currentTarget.files?.[0])}
        />
        <label for="bundle-text">Bundle (JSONC)</label>
        <textarea
          id="bundle-text"
          ref={editor}
          class="code"
          spellcheck={false}
          value={text ?? ''}
          disabled={text === undefined}
          aria-describedby={refused ? 'deploy-errors' : undefined}
          aria-invalid={refused ? true : undefined}
          onInput={(event) => setText(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy || text === undefined}>
          {busy ? 'Deploying…' : 'Deploy'}
        </button>
      </form>
      {failure !== undefined && <ProblemView error={failure} />}
      {deployed && (
        <div class="card" role="status">
          <p>
            Deployed revision {deployed.revision}
            {deployedName && (
              <>
                {' of '}
                <Link to={`/agents/${encodeURIComponent(deployedName)}`}>{deployedName}</Link>
              </>
            )}
            .
          </p>
          {deployed.warnings.length > 0 && (
            <ul>
              {deployed.warnings.map((warning) => (
                <li key={warning}>Warning: {warning}</li>
              ))}
            </ul>
          )}
          {deployedName && (
            <button type="button" class="secondary" onClick={() => navigate(`/agents/${encodeURIComponent(deployedName)}`)}>
              Open {deployedName}
            </button>
          )}
        </div>
      )}
      {refused && (
        <section id="deploy-errors" aria-labelledby="deploy-errors-heading">
          <h2 id="deploy-errors-heading" ref={errorsHeading} tabIndex={-1}>
            Not deployed: {refused.errors.length} {refused.errors.length === 1 ? 'error' : 'errors'}
          </h2>
          <ProblemView error={refused.error} />
          <ol class="located-errors">
            {refused.errors.map((located, index) => (
              <li key={index}>
                {located.line !== undefined ? (
                  <button type="button" class="link" onClick={() => goTo(located)}>
                    Line {located.line}, column {located.column}
                  </button>
                ) : (
                  <span>Somewhere in the bundle</span>
                )}{' '}
                <code>{located.path || '(bundle)'}</code> {located.message}
              </li>
            ))}
          </ol>
          <JsoncView text={refused.text} label="The bundle sent, with its errors under their lines" notes={notes} />
        </section>
      )}
    </>
  );
}

/** The agent's name as written in the bundle, to link to it after a deploy. */
function nameIn(text: string): string | undefined {
  const bundle: unknown = parse(text, [], { allowTrailingComma: true });
  const name = (bundle as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}
