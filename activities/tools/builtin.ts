// The built-in tool servers a bundle enables by id in `mcps`, and the tools each one brings.
import type { BUILTIN_TOOL_SERVERS } from '../../contract/bundle-constants.ts';
import type { Bundle } from '../../contract/bundle.ts';
import type { LoadableSkill } from '../../lib/skills.ts';
import { runJavascript } from './code.ts';
import { LOAD_SKILL, loadSkillTool } from './load-skill.ts';
import { httpRequest } from './http.ts';
import { forget, listMemories, recall, remember } from './memory.ts';
import { currentTime } from './time.ts';
import type { BuiltinTool } from './types.ts';
import { listWorkspaceFiles, readWorkspaceFile } from './workspace.ts';

type ToolServerId = (typeof BUILTIN_TOOL_SERVERS)[number];

/**
 * Typed by the list in contract/bundle-constants.ts, so a server added there must be given its tools
 * here; a unit test checks they are the tools contract/tool-servers.ts publishes, in its order.
 */
export const SERVERS: Record<ToolServerId, readonly BuiltinTool[]> = {
  time: [currentTime],
  workspace: [listWorkspaceFiles, readWorkspaceFile],
  http: [httpRequest],
  memory: [remember, recall, forget, listMemories],
  code: [runJavascript],
};

/** The tools of the servers the bundle enables, in `mcps` order; unknown ids (refused on deploy) are skipped. */
export function builtinTools(bundle: Pick<Bundle, 'mcps'>): BuiltinTool[] {
  return bundle.mcps.flatMap((id) => (Object.hasOwn(SERVERS, id) ? SERVERS[id as ToolServerId] : []));
}

/**
 * The tool of this name the service runs for the agent (from an enabled built-in server, load_skill
 * when it has skills, or one of `remote`, its revision's remote MCP tools): what a model's tool call
 * runs, when it names one.
 */
export function findBuiltinTool(
  bundle: Pick<Bundle, 'mcps'>,
  name: string,
  skills: readonly LoadableSkill[] = [],
  remote: readonly BuiltinTool[] = [],
): BuiltinTool | undefined {
  if (name === LOAD_SKILL && skills.length > 0) return loadSkillTool(skills);
  return builtinTools(bundle).find((tool) => tool.name === name) ?? remote.find((tool) => tool.name === name);
}

/**
 * Whether the service itself runs every one of these tool calls, at once (enabled built-in tools), so
 * the turn's next model step follows within moments. False when any call waits on a person
 * (ask_my_user) or a client (custom tools), or names no built-in tool.
 */
export function allRunByService(
  bundle: Pick<Bundle, 'mcps'>,
  calls: readonly { toolName: string }[],
  skills: readonly LoadableSkill[] = [],
  remote: readonly BuiltinTool[] = [],
): boolean {
  return calls.length > 0 && calls.every((call) => findBuiltinTool(bundle, call.toolName, skills, remote) !== undefined);
}

/** The enabled built-in server whose tool this is (load_skill belongs to none). */
export function builtinServerOf(bundle: Pick<Bundle, 'mcps'>, toolName: string): { id: string; kind: 'builtin' } | undefined {
  const id = bundle.mcps.find(
    (server) => Object.hasOwn(SERVERS, server) && SERVERS[server as ToolServerId].some((tool) => tool.name === toolName),
  );
  return id === undefined ? undefined : { id, kind: 'builtin' };
}
