// Bundles the tests share.
import type { Bundle } from '../../../lib/bundle/index.ts';

/**
 * A complete, valid bundle (every default spelled out) for code that stores agents directly
 * through store/agents.ts, bypassing POST /deploy and its defaults.
 */
export function minimalBundle(name: string, modelId = 'fake-model'): Bundle {
  return {
    name,
    model: { providerId: 'openai-compatible', modelId },
    skills: [],
    customTools: [],
    workspaceFiles: {},
    mcps: [],
    triggers: [],
    strictSecrets: false,
    secretGrants: [],
    userChannels: [],
    workflows: {},
  };
}

/**
 * A bundle with one workflow graph, `review`: the model drafts a reply to the input, an approval asks
 * whether to send it ("yes" sends it with the reviewer's note, "no" stops, no answer within
 * `expiresInMs` follows `onExpired`). The graph tests and the recorded replay histories run this one.
 */
export function reviewBundle(expiresInMs = 600_000, triggers: unknown[] = []) {
  return {
    triggers,
    workflows: {
      review: {
        start: 'draft',
        nodes: {
          draft: { type: 'agent', prompt: 'Draft a reply to: {{input}}', next: 'check' },
          check: {
            type: 'approval',
            question: 'Send this draft? {{nodes.draft.output}}',
            options: ['yes', 'no'],
            next: { yes: 'send', no: 'stop' },
            expiresInMs,
            onExpired: 'late',
          },
          send: { type: 'agent', prompt: 'Send it. The reviewer said: {{nodes.check.note}}' },
          stop: { type: 'end' },
          late: { type: 'agent', prompt: 'Nobody answered in time.' },
        },
      },
    },
  };
}
