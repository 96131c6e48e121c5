// An agent's A2A card (A2A v1.0): who it is, where its JSON-RPC endpoint is, how to sign in (a Bearer
// key of the service), what it can do (a skill to talk to it, one per custom command).
import type { AgentCard } from '@a2a-js/sdk';
import { commandUsage } from '../../contract/commands.ts';
import type { Bundle } from '../../lib/bundle/index.ts';
import type { Agent } from '../../store/agents.ts';

const BEARER = 'bearer';

export function agentCard(agent: Agent, bundle: Bundle, urls: { a2a: string; base: string }): AgentCard {
  const commands = Object.entries(bundle.command ?? {}).map(([name, command]) => ({
    id: `command_${name}`,
    name: `/${name}`,
    description:
      `The custom command "${name}" (${commandUsage(command.template) || 'no arguments'}): a message whose metadata is ` +
      `{"command": "${name}", "args": [...], "flags": {...}} runs it (its text is then ignored); its prompt: ${command.template.slice(0, 300)}`,
    tags: ['command'],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
  return {
    name: agent.name,
    description: `The agent "${agent.name}" (revision ${agent.revision}). Each message is a turn of one of its sessions (the context).`,
    supportedInterfaces: [{ url: urls.a2a, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: { organization: 'agent-service', url: urls.base },
    version: String(agent.revision),
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      [BEARER]: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { scheme: 'Bearer', bearerFormat: '', description: 'An API key of the service (Authorization: Bearer <key>)' },
        },
      },
    },
    securityRequirements: [{ schemes: { [BEARER]: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'talk',
        name: `Talk to ${agent.name}`,
        description: 'Send a message; the answer is the agent’s reply, as a task of the session the context names.',
        tags: ['chat'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
      ...commands,
    ],
    signatures: [],
  };
}
