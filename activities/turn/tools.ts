// Runs the tools a model step asked for that the service runs: built-in ones and remote MCP servers'. A tool the agent does not have, or input that
// does not fit the tool, becomes an error result the model can read, not a failed turn. Tools that
// act for the agent (memory, http) get its services here: its notes, the outbound guard, and only the
// secrets its bundle grants, decrypted inside this activity and never returned. A call of a turn that
// knows to wait takes one of its user's places first, as a model step does (step-queue.ts).
import { Context } from '@temporalio/activity';
import type { Bundle } from '../../lib/bundle/index.ts';
import type { RevisionOf } from './revision-cache.ts';
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/logger.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { createOutboundClient } from '../../lib/outbound.ts';
import type { Db } from '../../store/db.ts';
import { forgetNote, listNotes, recallNote, rememberNote } from '../../store/agent-memory.ts';
import { openSecrets } from '../../store/secrets.ts';
import { getSession } from '../../store/sessions.ts';
import { hasPassed } from '../../store/db-clock.ts';
import type { PlaceQueued, ServiceToolResult, ToolCall } from '../../core/turn-types.ts';
import { toolPlaceKey } from '../../core/place-keys.ts';
import { turnWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { findBuiltinTool, type AgentToolServices } from '../tools/index.ts';
import { codeSandbox } from '../tools/code.ts';
import { inUserPlace, wakeWaiter } from './step-queue.ts';
import { heartbeatEvery } from './step-deps.ts';
import { toolCallIdempotencyKey } from '../../lib/tool-call-keys.ts';
import { remoteToolServers, type RemoteCallAttempt } from './remote-calls.ts';
import { startToolSpan } from '../../lib/genai-spans.ts';
import { replayedResult } from './eval-replay.ts';
import { safeToRunLive } from '../tools/safe-tools.ts';

export interface ToolActivityDeps {
  db: Db;
  logger: Logger;
  config: Config;
  masterKeys: readonly MasterKey[];
  revisionOf: RevisionOf;
}

/** What the turn gives a call: `userId`, `turnId`, `mayQueue` and `wakeWorkflowId` are absent from histories from before places. */
export interface BuiltinToolInput {
  sessionId: string;
  agentId: string;
  revision: number;
  call: ToolCall;
  /** The assistant message that made the call (absent in histories from before idempotency keys). */
  messageId?: string;
  /** The session's owner, for whom the call runs. */
  userId?: string;
  turnId?: string;
  /** The turn waits (PlaceQueued) when its user already runs RUNNING_TURNS_PER_USER steps, calls and compactions. */
  mayQueue?: boolean;
  /** The workflow a freed place wakes when it is not the turn's own (a turn run in its session workflow). */
  wakeWorkflowId?: string;
  /**
   * A call its policy asked about with `validForMs`: the instant its approval stops being valid. Past it,
   * at the call's first attempt, the call does not run (`staleApproval`) and the turn asks again. A later
   * attempt runs: an earlier one may have acted, and the call runs with its idempotency key as always.
   */
  approvedUntil?: string;
}

/** A place lapses with a call's start-to-close timeout (workflows/turn.ts), the longest a call runs. */
const CALL_LEASE_MS = 2 * 60_000;

export function toolActivities(deps: ToolActivityDeps) {
  const { db } = deps;
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const places = { limit: deps.config.limits.runningTurnsPerUser, leaseMs: CALL_LEASE_MS };
  const placeDeps = { db, logger: deps.logger, wake: wakeWaiter };
  const replayed = replayedResult(db);
  // Made here, with this worker's setting, before any call uses it.
  codeSandbox({ scriptsPerUser: deps.config.limits.codeScriptsPerUser });

  /** The session's owner; its turn names it, but a call from a history before that is looked up. */
  async function ownerOf(input: BuiltinToolInput): Promise<string> {
    if (input.userId) return input.userId;
    const session = await getSession(db, input.sessionId);
    if (!session) throw new Error('the session no longer exists');
    return session.userId;
  }

  /** The agent's services; its user is the session's owner (its turn names it; looked up for an older history's call). */
  function agentServices(input: BuiltinToolInput, bundle: Bundle, running: RemoteCallAttempt): AgentToolServices {
    const owner = () => ownerOf(input);
    return {
      agentId: input.agentId,
      outbound,
      memory: {
        remember: (key, value, maxNotes) => rememberNote(db, input.agentId, key, value, maxNotes),
        recall: (key) => recallNote(db, input.agentId, key),
        forget: (key) => forgetNote(db, input.agentId, key),
        list: () => listNotes(db, input.agentId),
      },
      remote: remoteToolServers({ db, config: deps.config, masterKeys: deps.masterKeys, outbound }, owner, running),
      async grantedSecrets(names) {
        const granted = names.filter((name) => bundle.secretGrants.includes(name));
        if (granted.length === 0) return new Map();
        return openSecrets(db, deps.masterKeys, await owner(), granted);
      },
    };
  }

  return {
    /** The call's result, or `queued` when it asked to wait for a place and found none (nothing ran). */
    runBuiltinTool(input: BuiltinToolInput): Promise<ServiceToolResult | PlaceQueued> {
      const { userId, turnId, messageId } = input;
      if (!input.mayQueue || !userId || !turnId || !messageId) return runBuiltinTool(input);
      const claim = {
        userId,
        key: toolPlaceKey(input.sessionId, messageId, input.call.toolCallId),
        workflowId: input.wakeWorkflowId ?? turnWorkflowId(input.sessionId, turnId),
        waitingTurn: { sessionId: input.sessionId, turnId },
      };
      return inUserPlace<ServiceToolResult | PlaceQueued>(
        placeDeps,
        places,
        claim,
        () => runBuiltinTool(input),
        // No place at a retry: an earlier attempt had one and may have acted (core/turn-types.ts, PlaceQueued).
        () => (Context.current().info.attempt > 1 ? { queued: true, ran: true } : { queued: true }),
      );
    },
  };

  async function runBuiltinTool(input: BuiltinToolInput): Promise<ServiceToolResult> {
    const { bundle, skills, remoteTools } = await deps.revisionOf(input.agentId, input.revision);
    const { toolCallId, toolName } = input.call;
    // Checked here, once the call has its place and is about to run: the wait for a place can be long. By
    // PostgreSQL's clock, which wrote the approval's answer time that approvedUntil counts from.
    if (input.approvedUntil !== undefined && Context.current().info.attempt === 1 && (await hasPassed(db, input.approvedUntil)))
      return { type: 'tool-result', toolCallId, toolName, output: 'The approval is no longer valid.', isError: true, staleApproval: true };
    const tool = findBuiltinTool(bundle, toolName, skills, remoteTools);
    if (!tool) {
      return {
        type: 'tool-result',
        toolCallId,
        toolName,
        output: { error: `This agent has no tool named "${toolName}".` },
        isError: true,
      };
    }
    // An eval's case replaying a recorded session: a recorded result answers, and the tool does not run.
    const recorded = await replayed(input.sessionId, input.call, () => safeToRunLive({ bundle, skills, remoteTools }, input.call));
    if (recorded) return recorded;
    // Alive while it runs (an http call may take its whole timeout): a worker that dies mid-call is noticed.
    const context = Context.current();
    const beat = setInterval(() => context.heartbeat(), heartbeatEvery(context.info.heartbeatTimeoutMs));
    let result: Awaited<ReturnType<typeof tool.execute>>;
    const key = input.messageId ? { idempotencyKey: toolCallIdempotencyKey(input.sessionId, input.messageId, toolCallId) } : {};
    const span = startToolSpan(
      {
        toolName,
        toolCallId,
        description: tool.description,
        runsOn: remoteTools.some((remote) => remote === tool) ? 'mcp' : 'builtin',
        sessionId: input.sessionId,
        agentId: input.agentId,
        agentName: bundle.name,
        ...key,
      },
      deps.config.tracing.captureContent,
      input.call.input,
    );
    try {
      const running = { attempt: context.info.attempt, signal: context.cancellationSignal };
      const userId = await ownerOf(input).catch(() => undefined);
      result = await tool.execute(input.call.input, {
        bundle,
        agent: agentServices(input, bundle, running),
        ...(userId ? { userId } : {}),
        ...key,
      });
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      clearInterval(beat);
    }
    span.end(result);
    const { output, isError, signIn } = result;
    return { type: 'tool-result', toolCallId, toolName, output, ...(isError ? { isError: true } : {}), ...(signIn ? { signIn } : {}) };
  }
}
