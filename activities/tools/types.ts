// The shape of a tool the service runs itself. Built-in tool servers (bundle `mcps`) are lists of
// these; the model sees their name, description and input schema, and the turn runs `execute`.
import type { Bundle, JsonObject } from '../../contract/bundle.ts';
import type { OutboundClient } from '../../lib/outbound.ts';
import type { OpenedSecret } from '../../store/secrets.ts';

/**
 * What tools that act for an agent reach: its notes, the network (through the outbound guard) and the
 * secrets it is granted. Given by the activity that runs the call; tools that only read their bundle
 * (time, workspace) run without it.
 */
export interface AgentToolServices {
  agentId: string;
  memory: AgentMemory;
  outbound: OutboundClient;
  /**
   * The named secrets of the agent's user, only those the bundle grants, each with the hosts it may
   * be sent to in tool headers (lib/secret-hosts.ts); absent names are missing.
   */
  grantedSecrets(names: readonly string[]): Promise<ReadonlyMap<string, OpenedSecret>>;
  /** The remote MCP servers its user registered (activities/turn/remote-calls.ts). */
  remote: RemoteToolServers;
}

/** Calls of the tools of remote MCP servers, as the agent's user registered them. */
export interface RemoteToolServers {
  /** The result the model reads; throws only while another attempt may still reach the server. */
  call(serverId: string, toolName: string, input: unknown, idempotencyKey: string | undefined): Promise<ToolOutcome>;
}

/** The `memory` server's notes of one agent (store/agent-memory.ts). */
export interface AgentMemory {
  /** `false` when the note is new and the agent already holds `maxNotes` notes. */
  remember(key: string, value: string, maxNotes: number): Promise<boolean>;
  recall(key: string): Promise<{ value: string; updatedAt: Date } | undefined>;
  forget(key: string): Promise<boolean>;
  list(): Promise<{ key: string; value: string; updatedAt: Date }[]>;
}

export interface ToolContext {
  bundle: Bundle;
  /** The user the call runs for (the session's owner): the code sandbox shares its threads out per user. */
  userId?: string;
  /**
   * The call's idempotency key (lib/tool-call-keys.ts), the same on every attempt: a tool with an effect
   * outside the service passes it on. Absent for a call from a history recorded before keys existed.
   */
  idempotencyKey?: string;
  /** The clock, replaceable in tests. */
  now?: () => Date;
  agent?: AgentToolServices;
}

/** A result for the model. Failures the model can act on are outputs with `isError`, never throws. */
export interface ToolOutcome {
  output: unknown;
  isError: boolean;
  /** Not run: its MCP server needs its user to sign in first (the turn asks them, then calls again). */
  signIn?: { serverId: string };
}

export interface BuiltinTool {
  name: string;
  description: string;
  /** A draft-07 JSON Schema object; inputs are checked against it before `execute` runs. */
  inputSchema: JsonObject;
  execute(input: unknown, context: ToolContext): Promise<ToolOutcome>;
}
