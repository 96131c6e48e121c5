// Each agent as an A2A agent (protocol v1.0, JSON-RPC binding): its card, and the endpoint its card names.
// The JSON-RPC methods are the A2A specification's; the document describes the HTTP side.
import { defineOperation } from './operation.ts';

const JSON_RPC = { description: 'A JSON-RPC 2.0 request of the A2A protocol (v1.0)', type: 'object' } as const;

export const getAgentA2aCard = defineOperation({
  id: 'getAgentA2aCard',
  method: 'get',
  path: '/agent/{name}/a2a/.well-known/agent-card.json',
  summary: "The agent's A2A card (v1.0): its JSON-RPC endpoint, Bearer sign-in, skills (talking to it, its commands)",
  description:
    'Needs a key, as the agent is named per user. Its `supportedInterfaces` name the endpoint, `POST /agent/{name}/a2a`; ' +
    'each custom command is a skill, run by a message whose metadata is `{"command": "<name>", "args": [...], "flags": {...}}`.',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: { description: 'The card', schema: { description: 'An A2A AgentCard (v1.0)', type: 'object' } },
    404: { description: 'You have no agent of that name' },
  },
});

export const postAgentA2a = defineOperation({
  id: 'postAgentA2a',
  method: 'post',
  path: '/agent/{name}/a2a',
  summary: 'The agent as an A2A agent: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask',
  description:
    'Send `A2A-Version: 1.0`. A task is a turn, its id the message that started it; its context is the session (a message ' +
    'without a contextId opens a new one). A turn that waits on a person or a client is `TASK_STATE_INPUT_REQUIRED`, its ' +
    'status message saying what it waits on and where that is answered; it goes on by itself once answered, and GetTask ' +
    'reads it. CancelTask aborts the turn. Push notification configs (with the message, or Create/Get/List/Delete) are told ' +
    'when a task waits on its user, completes, fails or is cancelled (docs/a2a.md). ' +
    'Every message is a turn like any other: same events, usage, budgets, limits, webhooks and traces. Starting a turn needs ' +
    'the `sessions:write` scope, as does every push config method.',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  body: { contentTypes: ['application/json'], schema: JSON_RPC, required: true },
  responses: {
    200: {
      description: 'The JSON-RPC answer (errors included, as A2A defines them), or an SSE stream of them for a streaming method',
      schema: JSON_RPC,
      also: { 'text/event-stream': { description: 'JSON-RPC answers, one per SSE event' } },
    },
    404: { description: 'You have no agent of that name' },
  },
});
