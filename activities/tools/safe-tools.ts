// Which tools an eval may run for real when it replays a recorded session and a call matches no recorded
// one (`unmatched: "live"`, docs/evals.md): only tools that change nothing anyone sees, neither outside
// the service nor the agent's own state (its notes). The service marks its own built-in tools that only
// read; every other tool is safe only when the bundle marks it (`safeTools`), and a mark covers every input
// of the tool, except `http_request`'s, which covers its GET requests only (a POST sends something,
// whoever marked it). An MCP server's own `readOnlyHint` is not taken as the mark: it is the server's word,
// and the MCP specification asks clients not to decide on a stranger's annotations.
import type { ToolServerId } from '../../contract/tool-servers.ts';
import type { Bundle } from '../../contract/bundle.ts';
import type { LoadableSkill } from '../../lib/skills.ts';
import { builtinServerOf, findBuiltinTool } from './builtin.ts';
import { LOAD_SKILL } from './load-skill.ts';
import { isRemoteTool, type RemoteTool } from './remote.ts';

/**
 * Built-in tools that read the revision, the agent's notes or the clock, or compute in the sandbox (no
 * network, no files): running one again changes nothing anyone sees. The bundle schema's `safeTools`
 * description lists them too.
 */
export const READ_ONLY_BUILTIN_TOOLS: Readonly<Record<ToolServerId, readonly string[]>> = {
  time: ['current_time'],
  workspace: ['list_workspace_files', 'read_workspace_file'],
  http: [],
  memory: ['recall', 'list_memories'],
  code: ['run_javascript'],
};

/** Whether the bundle's `safeTools` marks this tool of this server (by name or `*`). */
export function markedSafe(safeTools: Bundle['safeTools'], serverId: string, toolName: string): boolean {
  // Own keys only: a server named `constructor` must not find Object.prototype's.
  const marks = safeTools && Object.hasOwn(safeTools, serverId) ? safeTools[serverId] : undefined;
  return marks !== undefined && (marks.includes('*') || marks.includes(toolName));
}

/** Whether an eval may run this call of a tool the service runs (built-in or remote) for real. */
export function safeToRunLive(
  revision: { bundle: Pick<Bundle, 'mcps' | 'safeTools'>; skills?: readonly LoadableSkill[]; remoteTools?: readonly RemoteTool[] },
  call: { toolName: string; input?: unknown },
): boolean {
  const { toolName } = call;
  const { bundle, skills = [], remoteTools = [] } = revision;
  if (toolName === LOAD_SKILL) return skills.length > 0;
  const tool = findBuiltinTool(bundle, toolName, skills, remoteTools);
  if (!tool) return false;
  if (isRemoteTool(tool)) return markedSafe(bundle.safeTools, tool.serverId, toolName);
  const server = builtinServerOf(bundle, toolName);
  if (!server) return false;
  const readOnly = READ_ONLY_BUILTIN_TOOLS[server.id as ToolServerId] ?? [];
  if (readOnly.includes(toolName)) return true;
  return markedSafe(bundle.safeTools, server.id, toolName) && (toolName !== HTTP_REQUEST || isGet(call.input));
}

const HTTP_REQUEST = 'http_request';

/** An http_request call that only reads: GET, the method it has when it names none. */
function isGet(input: unknown): boolean {
  const method = typeof input === 'object' && input !== null ? (input as { method?: unknown }).method : undefined;
  return method === undefined || method === 'GET';
}
