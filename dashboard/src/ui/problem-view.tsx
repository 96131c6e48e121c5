// An error as the person needs it: what went wrong (the problem's title and detail) and the trace id
// that names the request in the service's logs, to quote when asking for help.
import { APIError } from '@agent-service/sdk';

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
  return (
    <div class="problem" role="alert">
      <p class="problem-title">{title}</p>
      {detail && detail !== title && <p class="problem-detail">{detail}</p>}
      {traceId && (
        <p class="problem-trace">
          Trace id: <code>{traceId}</code>
        </p>
      )}
    </div>
  );
}
