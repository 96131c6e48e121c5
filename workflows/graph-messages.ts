// The messages a workflow graph's run takes (workflows/graph.ts), apart from its body so that the
// session workflow that signals it imports definitions, not workflow code.
import { defineSignal } from '@temporalio/workflow';
import type { AgentNodeEnd } from '../core/session-turns.ts';

export type { AgentNodeEnd };

export const agentNodeEndedSignal = defineSignal<[AgentNodeEnd]>('agentNodeEnded');
