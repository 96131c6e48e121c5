// An error as the person needs it: what went wrong (the problem's title and detail) and the trace id
// that names the request in the service's logs, to quote when asking for help.
import { useContext } from 'preact/hooks';
import { APIError, AuthenticationError } from '@agent-service/sdk';
import { SessionContext } from '../auth/client-context.ts';

export interface Described {
  title: string;
  detail?: string;
  traceId?: string;
}

export function describeError(error: unknown): Described {
  if (error instanceof APIError) {
    return { title: error.title ?? `Error ${error.status}`, detail: error.detail, traceId: error.traceId };
  }
  if (error instanceof Error) return { title: 'The service could not be reached', detail: error.message };
  return { title: 'Something went wrong', detail: String(error) };
}

export function ProblemView({ error }: { error: unknown }) {
  const { title, detail, traceId } = describeError(error);
  // A key deleted (or expired) while signed in: every call will fail the same way, so say what to do.
  const session = useContext(SessionContext);
  const signedOut = error instanceof AuthenticationError && session !== undefined;
  return (
    <div class="problem" role="alert">
      <p class="problem-title">{title}</p>
      {detail && detail !== title && <p class="problem-detail">{detail}</p>}
      {traceId && (
        <p class="problem-trace">
          Trace id: <code>{traceId}</code>
        </p>
      )}
      {signedOut && (
        <p>
          Your key is no longer accepted.{' '}
          <button type="button" class="secondary small" onClick={session.signOut}>
            Sign in again
          </button>
        </p>
      )}
    </div>
  );
}
