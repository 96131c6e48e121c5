// Agent names by id: approvals and sessions name their agent by id, people by name.
import type { Client } from '@agent-service/sdk';

export async function agentNames(client: Client, signal?: AbortSignal): Promise<Map<string, string>> {
  try {
    const { agents } = await client.agents.list({ signal });
    return new Map(agents.map((agent) => [agent.id, agent.name]));
  } catch {
    // Names are a convenience: without them (a key without read) the ids are shown.
    return new Map();
  }
}
