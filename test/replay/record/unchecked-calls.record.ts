// Records a turn whose step came from a worker that predates tool policies (a rolling deploy): its result
// says no `policies`, so the turn runs none of its calls and tells the model why (patch
// policy-checked-calls). Recorded on the workflow tier (test/helpers/harness/workflow-env.ts): only a mocked
// activity can still answer as such a worker did.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ModelStepInput, StepResult } from '../../../core/turn-types.ts';
import { turnWorkflow } from '../../../workflows/turn.ts';
import { fastTurnSettings, workflowEnv, type WorkflowEnv } from '../../helpers/harness/workflow-env.ts';
import { recorder } from './recorder.ts';

let env: WorkflowEnv;
beforeAll(async () => {
  env = await workflowEnv();
});
afterAll(async () => env?.teardown());

const olderWorkersStep = (input: ModelStepInput): StepResult => ({
  messageId: input.messageId,
  text: input.step === 1 ? '' : 'done',
  toolCalls: input.step === 1 ? [{ toolCallId: 'call_1', toolName: 'http_request', input: { url: 'https://example.com' } }] : [],
  finishReason: input.step === 1 ? 'tool-calls' : 'stop',
  usage: { inputTokens: 1, outputTokens: 1 },
  costUsd: null,
  ...(input.startsTurn ? { turnStarted: true as const } : {}),
});

test('a turn refuses the calls of a step that did not check them against the tool policies', async () => {
  const record = recorder(env.client, []);
  if (!record.wanted('turnWorkflow', 'unchecked-calls-refused')) return;
  const workflowId = 'turn:ses_record_unchecked:trn_1';
  await env.withWorker(
    {
      runModelStep: async (input) => olderWorkersStep(input),
      runBuiltinTool: async () => {
        throw new Error('an unchecked call must not run');
      },
      recordToolResults: async () => {},
      completeTurn: async () => {},
      startTurn: async () => {},
    },
    async (taskQueue) => {
      const outcome = await env.client.workflow.execute(turnWorkflow, {
        taskQueue,
        workflowId,
        args: [
          {
            sessionId: 'ses_record_unchecked',
            userId: 'usr_record',
            agentId: 'agt_record',
            revision: 1,
            turnId: 'trn_1',
            settings: fastTurnSettings(),
          },
        ],
      });
      expect(outcome.status).toBe('completed');
      await record.closed(workflowId, 'turnWorkflow', 'unchecked-calls-refused');
    },
  );
});
