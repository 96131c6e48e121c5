// Runs the tools a model step asked for that the service runs: built-in ones and remote MCP servers'. A tool the agent does not have, or input that
// does not fit the tool, becomes an error result the model can read, not a failed turn. Tools that
// act for the agent (memory, http) get its services here: its notes, the outbound guard, and only the
// secrets its bundle grants, decrypted inside this activity and never returned.
import { Context } from '@temporalio/activity';
import type { Bundle } from '../../lib/bundle/index.ts';
import type { RevisionOf } from './revision-cache.ts';
import type { Config } from '../../lib/config.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { createOutboundClient } from '../../lib/outbound.ts';
import type { Db } from '../../store/db.ts';
import { forgetNote, listNotes, recallNote, rememberNote } from '../../store/agent-memory.ts';
import { openSecrets } from '../../store/secrets.ts';
import { getSession } from '../../store/sessions.ts';
import type { ToolCall, ToolResultPart } from '../../core/turn-types.ts';
import { findBuiltinTool, type AgentToolServices } from '../tools/index.ts';
import { heartbeatEvery } from './model-step.ts';
import { toolCallIdempotencyKey } from '../../lib/tool-call-keys.ts';
import { remoteToolServers, type RemoteCallAttempt } from './remote-calls.ts';
import { startToolSpan } from '../../lib/genai-spans.ts';

export interface ToolActivityDeps {
  db: Db;
  config: Config;
  masterKeys: readonly MasterKey[];
  revisionOf: RevisionOf;
}

export function toolActivities(deps: ToolActivityDeps) {
  const { db } = deps;
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });

  /** The agent's services; its user is the session's owner (one lookup, only for tools that need it). */
  function agentServices(input: { sessionId: string; agentId: string }, bundle: Bundle, running: RemoteCallAttempt): AgentToolServices {
    const owner = async () => {
      const session = await getSession(db, input.sessionId);
      if (!session) throw new Error('the session no longer exists');
      return session.userId;
    };
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
    /** `messageId`: the assistant message that made the call (absent in histories from before idempotency keys). */
    async runBuiltinTool(input: {
      sessionId: string;
      agentId: string;
      revision: number;
      call: ToolCall;
      messageId?: string;
    }): Promise<ToolResultPart> {
      const { bundle, skills, remoteTools } = await deps.revisionOf(input.agentId, input.revision);
      const { toolCallId, toolName } = input.call;
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
        result = await tool.execute(input.call.input, { bundle, agent: agentServices(input, bundle, running), ...key });
      } catch (error) {
        span.fail(error);
        throw error;
      } finally {
        clearInterval(beat);
      }
      span.end(result);
      const { output, isError } = result;
      return { type: 'tool-result', toolCallId, toolName, output, ...(isError ? { isError: true } : {}) };
    },
  };
}
