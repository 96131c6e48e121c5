// A complete, valid bundle (every default spelled out) for code that stores agents directly
// through store/agents.ts, bypassing POST /deploy and its defaults.
import type { Bundle } from '../../../lib/bundle/index.ts';

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
