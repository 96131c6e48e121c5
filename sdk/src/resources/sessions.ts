import type {
  Compacted,
  CreatedSession,
  Forked,
  IfBusy,
  Media,
  ModelOverrideBody,
  RelayedEvent,
  RegenerateAccepted,
  Reverted,
  SendBody,
  SessionPage,
  SessionView,
  SessionWithMessages,
  TurnAccepted,
  TurnReply,
} from '../contract.ts';
import { PagedList } from '../pagination.ts';
import { runWithTools, resumeTools, type ToolHandlers, type ToolRunOptions, type ToolRunResult } from '../tool-runner.ts';
import { path, type RequestOptions, type Transport } from '../transport.ts';
import { TurnStream } from '../turn-stream.ts';
import { toBlob, type UploadNaming, type UploadSource } from '../upload-source.ts';
import { openEventStream } from './events.ts';
import { Resource, newIdempotencyKey } from './resource.ts';

/** How long `compact` waits: the service waits up to five minutes for the summary, then a little more. */
const COMPACTION_TIMEOUT_MS = 330_000;

/** A message to send: text, or the parts of SendBody (text and uploaded files), and an optional model. */
export type MessageInput = string | { text: string; model?: ModelOverrideBody } | SendBody;

export interface SendOptions extends RequestOptions {
  /**
   * What to do while another turn runs: queue (default), reject (ConflictError), interrupt it, or steer it
   * (the message joins the running turn, whose next model step reads it; the send follows that turn).
   */
  ifBusy?: IfBusy;
  /** Reconnections in a row without an event before the stream gives up (default 10). */
  maxReconnects?: number;
  /** Called before the stream reconnects, with the seq it resumes after. */
  onReconnect?: (lastSeq: number) => void;
  /**
   * Streamed sends: the events of the agents the turn calls (and those call) as they come: their text
   * deltas, questions and ends, each wrapped with the call it belongs to. The turn's own events are
   * iterated as ever; these are not among them.
   */
  onChildEvent?: (relayed: RelayedEvent) => void;
}

export function toSendBody(message: MessageInput): SendBody {
  if (typeof message === 'string') return { parts: [{ type: 'text', text: message }] };
  if ('parts' in message) return message;
  return { parts: [{ type: 'text', text: message.text }], ...(message.model ? { model: message.model } : {}) };
}

export class Sessions extends Resource {
  /**
   * A new session with the agent, pinned for its whole life to the live revision (or, in a canary's share
   * of sessions, to the revision given that share). `revision` pins it to any revision instead, a staged
   * one included: how a staged revision is tried before `agents.promote`.
   */
  create(agentName: string, options: RequestOptions & { revision?: number } = {}): Promise<CreatedSession> {
    const { revision, ...request } = options;
    return this.transport.json(
      { method: 'POST', path: path`/agent/${agentName}/session`, json: revision === undefined ? {} : { revision }, idempotent: false },
      request,
    );
  }

  /** The agent's sessions, newest first: `await` for the first page, `for await` for all. */
  list(agentName: string, query: { limit?: number; before?: string } = {}, options: RequestOptions = {}): PagedList<SessionView> {
    return new PagedList(
      async (before, pageOptions) => {
        const page = await this.transport.json<SessionPage>(
          { method: 'GET', path: path`/agent/${agentName}/sessions`, query: { limit: query.limit, before }, idempotent: true },
          pageOptions,
        );
        return { items: page.sessions, next: page.next };
      },
      options,
      query.before,
    );
  }

  /** The session with its messages, status, usage and what it waits for (`waitingFor`). */
  retrieve(id: string, options?: RequestOptions): Promise<SessionWithMessages> {
    return this.transport.json({ method: 'GET', path: path`/session/${id}`, idempotent: true }, options);
  }

  /**
   * Sends a message and streams its turn: iterate the returned TurnStream for the turn's events (it
   * ends after turn.completed, turn.failed or turn.aborted, resuming by itself if the connection
   * breaks), or await `text()` / `finalMessage()` / `json()`. The request goes out at once; a retry
   * of it carries the same Idempotency-Key, so the message is sent once.
   */
  send(id: string, message: MessageInput, options: SendOptions = {}): TurnStream {
    const opened = this.transport.raw(
      {
        method: 'POST',
        path: path`/session/${id}`,
        query: { ifBusy: options.ifBusy, ...(options.onChildEvent ? { children: 1 } : {}) },
        json: toSendBody(message),
        accept: 'text/event-stream',
        idempotent: true,
        idempotencyKey: newIdempotencyKey(),
      },
      options,
    );
    return this.turnStream(id, opened, options);
  }

  /** Sends and waits for the turn to end (or to wait on someone): the reply, or `status: 'waiting'` with `waitingFor`. */
  sendAndWait(id: string, message: MessageInput, options: SendOptions = {}): Promise<TurnReply> {
    return this.transport.json(
      {
        method: 'POST',
        path: path`/session/${id}`,
        query: { ifBusy: options.ifBusy },
        json: toSendBody(message),
        idempotent: true,
        idempotencyKey: newIdempotencyKey(),
      },
      { timeoutMs: 10 * 60_000, ...options },
    );
  }

  /** Records the message and answers at once with its id; follow the turn with `client.events`. */
  sendAsync(id: string, message: MessageInput, options: SendOptions = {}): Promise<TurnAccepted> {
    return this.transport.json(
      {
        method: 'POST',
        path: path`/session/${id}`,
        query: { async: 1, ifBusy: options.ifBusy },
        json: toSendBody(message),
        idempotent: true,
        idempotencyKey: newIdempotencyKey(),
      },
      options,
    );
  }

  /** Stops the running turn (it ends with turn.aborted) and drops queued ones. */
  abort(id: string, options?: RequestOptions): Promise<{ aborted: boolean }> {
    return this.transport.json({ method: 'POST', path: path`/session/${id}/abort`, idempotent: true }, options);
  }

  /** A new session holding a copy of this one's conversation so far. */
  fork(id: string, options?: RequestOptions): Promise<Forked> {
    return this.transport.json({ method: 'POST', path: path`/session/${id}/fork`, idempotent: false }, options);
  }

  /** Takes `messageId` and everything after it out of the conversation. */
  revert(id: string, messageId: string, options?: RequestOptions): Promise<Reverted> {
    return this.transport.json({ method: 'POST', path: path`/session/${id}/revert`, json: { messageId }, idempotent: false }, options);
  }

  /**
   * Compacts the conversation now: its older part is summarised, and the model is sent the summary from
   * then on (the service also does this by itself near the model's context window). Waits for the summary,
   * a model call, for up to five minutes; `compacted: false` when the conversation is too short.
   */
  compact(id: string, options?: RequestOptions): Promise<Compacted> {
    return this.transport.json(
      { method: 'POST', path: path`/session/${id}/compact`, idempotent: false },
      { timeoutMs: COMPACTION_TIMEOUT_MS, ...options },
    );
  }

  /** Runs the turn of an assistant reply again (optionally with another model), streamed like a send. */
  regenerate(id: string, assistantMessageId: string, options: SendOptions & { model?: ModelOverrideBody } = {}): TurnStream {
    const opened = this.transport.raw(
      {
        method: 'POST',
        path: path`/session/${id}/regenerate`,
        json: { assistantMessageId, ...(options.model ? { model: options.model } : {}) },
        accept: 'text/event-stream',
        idempotent: false,
      },
      options,
    );
    return this.turnStream(id, opened, options);
  }

  /** Regenerates without waiting: the new turn's ids and what left the conversation. */
  regenerateAsync(
    id: string,
    assistantMessageId: string,
    options: RequestOptions & { model?: ModelOverrideBody } = {},
  ): Promise<RegenerateAccepted> {
    return this.transport.json(
      {
        method: 'POST',
        path: path`/session/${id}/regenerate`,
        query: { async: 1 },
        json: { assistantMessageId, ...(options.model ? { model: options.model } : {}) },
        idempotent: false,
      },
      options,
    );
  }

  /**
   * Uploads a file to the session: a path (Node), a Blob or File, bytes or a web ReadableStream (read
   * to its end first). Send it with a `{type: 'file', url}` part. `filename` and `mediaType` default
   * to the File's or the path's.
   */
  async upload(id: string, source: UploadSource, options: RequestOptions & UploadNaming = {}): Promise<Media> {
    const { blob, filename } = await toBlob(source, options);
    const form = new FormData();
    form.append('file', blob, filename);
    return this.transport.json({ method: 'POST', path: path`/session/${id}/upload`, body: form, idempotent: false }, options);
  }

  /** Downloads an upload of the session by its key (`media/<uuid>-<name>`): read the Response's body as you like. */
  downloadMedia(id: string, key: string, options?: RequestOptions): Promise<Response> {
    return this.transport.raw(
      { method: 'GET', path: path`/session/${id}/media`, query: { key }, accept: '*/*', idempotent: true },
      options,
    );
  }

  /**
   * Sends a message and runs its turn to the end, answering every call of a custom tool the client
   * runs (`tool.call` with `executor: 'client'`) with `handlers[toolName](input)` as it comes.
   */
  runWithTools(id: string, message: MessageInput, options: ToolRunOptions & SendOptions): Promise<ToolRunResult> {
    return runWithTools(this.transport, this.send(id, message, options), id, options);
  }

  /**
   * After a restart of the client's own process: answers the calls the session waits for
   * (`waitingFor: {kind: 'tool'}`), then follows the turn, answering later calls, until it ends.
   * Resolves at once (with `end: undefined`) when the session waits for no tool.
   */
  resumeTools(id: string, handlers: ToolHandlers, options: Omit<ToolRunOptions, 'handlers'> = {}): Promise<ToolRunResult | undefined> {
    return resumeTools(this.transport, id, { ...options, handlers });
  }

  private turnStream(id: string, opened: Promise<Response>, options: SendOptions): TurnStream {
    return turnStreamOf(this.transport, opened, options, id);
  }
}

/** The TurnStream of a request answering with a turn's SSE stream, resuming on the session's events. */
export function turnStreamOf(transport: Transport, opened: Promise<Response>, options: SendOptions, sessionId?: string): TurnStream {
  return new TurnStream({
    opened,
    ...(sessionId ? { sessionId } : {}),
    reconnect: (session, lastSeq, signal) => openEventStream(transport, session, lastSeq, signal, options.onChildEvent !== undefined),
    signal: options.signal,
    maxReconnects: options.maxReconnects,
    onReconnect: options.onReconnect,
    ...(options.onChildEvent ? { onChildEvent: options.onChildEvent } : {}),
  });
}
