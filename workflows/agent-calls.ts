// A turn's calls of other agents (docs/tools.md, "Calling other agents"): each opens or continues a
// child session of the callee (activities/agent-calls.ts), whose reply comes back as the call's answer:
// stored in the caller's inbox, as a client's tool result is, and signalled to the calling workflow
// (workflows/client-tools.ts waits for both kinds). A turn that ends, aborted or failed, aborts the
// children that have not answered.
import { CancellationScope, log, proxyActivities, proxyLocalActivities, uuid4, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ToolCall, TurnInput } from '../core/turn-types.ts';
import { ALPHABET } from '../lib/workflow-safe/id-alphabet.ts';
import { messageId } from './ids.ts';

/** A session id made in the workflow (deterministic on replay), in the form of the API's (lib/ids.ts). */
export function childSessionId(): string {
  let bits = BigInt(`0x${uuid4().replace(/-/g, '')}`);
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = ALPHABET[Number(bits & 31n)]! + out;
    bits >>= 5n;
  }
  return `ses_${out}`;
}

export function agentCalls(input: TurnInput) {
  // Each a few statements and a signal to the engine, idempotent; the start runs inside the workflow
  // task, saving a task round trip on every call (as the turn's bookkeeping does).
  const starts = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '200 milliseconds', maximumAttempts: 10 },
  });
  const activities = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '200 milliseconds', maximumAttempts: 10 },
  });
  /** The children started by this turn's calls: the call's step message and id, the child's session and turn. */
  const started: { messageId: string; toolCallId: string; sessionId: string; turnId: string }[] = [];
  const settings = input.settings;
  return {
    /**
     * Starts the call: undefined once the child runs, or why it was refused (the model reads that). Not
     * cancellable (it is short): an abort meanwhile finds the child it opened in `started` and aborts it.
     */
    async start(stepMessageId: string, call: ToolCall): Promise<string | undefined> {
      const startInput = {
        sessionId: input.sessionId,
        userId: input.userId,
        agentId: input.agentId,
        revision: input.revision,
        messageId: stepMessageId,
        call: { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input },
        childSessionId: childSessionId(),
        childMessageId: messageId(),
        settings,
        // Told the reply: this session's workflow, or a graph node's turn workflow.
        callerWorkflowId: workflowInfo().workflowId,
      };
      const result = await CancellationScope.nonCancellable(() => starts.startAgentCall(startInput));
      if ('refused' in result) return result.refused;
      started.push({
        messageId: stepMessageId,
        toolCallId: call.toolCallId,
        sessionId: result.childSessionId,
        turnId: result.childMessageId,
      });
      return undefined;
    },
    /**
     * The turn was aborted, or failed: so are the children whose answer has not come (`answered` says which
     * came). Undefined, decided at once, when there are none: a turn that called no agent awaits nothing
     * here, so its commands come in the order they always did.
     */
    abortUnanswered(answered: (messageId: string, toolCallId: string) => boolean): Promise<void> | undefined {
      const children = started.filter((child) => !answered(child.messageId, child.toolCallId));
      if (children.length === 0) return undefined;
      return CancellationScope.nonCancellable(() =>
        activities.abortAgentCalls({ settings, children: children.map(({ sessionId, turnId }) => ({ sessionId, turnId })) }),
      ).catch((error: unknown) => {
        // The turn's end must still be written: a child left running ends on its own.
        log.warn('the children of an ended turn were not aborted', { error: String(error) });
      });
    },
  };
}
