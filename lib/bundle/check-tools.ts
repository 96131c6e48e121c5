// Tools the model will see: custom tool ids must be unique and leave built-in names alone (the tools
// every agent has, and those of the tool servers it enables), tool servers must exist, and every JSON
// Schema the model is held to must compile. Policies and safe marks name enabled servers' tools.
import { BUILTIN_TOOL_NAMES, BUILTIN_TOOL_SERVERS } from '../../contract/bundle-constants.ts';
import { toolServer } from '../../contract/tool-servers.ts';
import { jsonSchemaProblem } from './json-schema-check.ts';
import { childPointer } from './pointer.ts';
import { isRecord, type Json, type Report } from './report.ts';
import { parseTeam } from '../workflow-safe/approval-quorum.ts';

/** A tool call's approval options (core/tool-policies.ts, TOOL_APPROVAL_OPTIONS): a team's `deny` may win. */
const TOOL_CALL_OPTIONS = ['approve', 'deny'];

/** `{ask: {approvers, quorum?, denyWins?}}` policies: their names and rule (the directory is checked at deploy). */
function checkTeamPolicies(policies: unknown, report: Report): void {
  if (!isRecord(policies)) return;
  for (const [serverId, tools] of Object.entries(policies)) {
    if (!isRecord(tools)) continue;
    for (const [toolName, policy] of Object.entries(tools)) {
      const at = `${childPointer('/toolPolicies', serverId, toolName)}/ask`;
      if (!isRecord(policy) || !isRecord(policy.ask) || !report.clean(at)) continue;
      const team = parseTeam(policy.ask, TOOL_CALL_OPTIONS);
      if (!team.ok) report.error(`${at}${team.path}`, team.error);
    }
  }
}

/** `registered`: the user's remote MCP server ids; absent, any id may be one (the service checks on deploy). */
export function checkTools(bundle: Json, report: Report, registered?: ReadonlySet<string>): void {
  checkCustomTools(bundle.customTools, serverToolNames(bundle.mcps), report);
  checkToolServers(bundle.mcps, report, registered);
  checkServerTools('/toolPolicies', bundle.toolPolicies, bundle.mcps, report);
  checkTeamPolicies(bundle.toolPolicies, report);
  checkServerTools('/safeTools', bundle.safeTools, bundle.mcps, report);
  if (isRecord(bundle.jsonReply)) checkJsonSchema(bundle.jsonReply.schema, '/jsonReply/schema', report);
}

/** Tool name -> the enabled server that brings it. */
function serverToolNames(ids: unknown): Map<string, string> {
  const names = new Map<string, string>();
  if (!Array.isArray(ids)) return names;
  for (const id of ids) {
    if (typeof id !== 'string') continue;
    for (const tool of toolServer(id)?.tools ?? []) names.set(tool.name, id);
  }
  return names;
}

function checkCustomTools(tools: unknown, serverTools: ReadonlyMap<string, string>, report: Report): void {
  if (!Array.isArray(tools)) return;
  const firstIndex = new Map<string, number>();
  tools.forEach((tool: unknown, index) => {
    if (!isRecord(tool)) return;
    const idPath = `/customTools/${index}/id`;
    const id = report.string(tool.id, idPath);
    if (id !== undefined) {
      const first = firstIndex.get(id);
      if ((BUILTIN_TOOL_NAMES as readonly string[]).includes(id)) report.error(idPath, `"${id}" is the name of a built-in tool`);
      else if (serverTools.has(id)) report.error(idPath, `"${id}" is a tool of the enabled tool server "${serverTools.get(id)}"`);
      else if (first !== undefined) report.error(idPath, `duplicates the id of /customTools/${first}`);
      else firstIndex.set(id, index);
    }
    checkJsonSchema(tool.parameters, `/customTools/${index}/parameters`, report);
  });
}

function checkToolServers(ids: unknown, report: Report, registered: ReadonlySet<string> | undefined): void {
  if (!Array.isArray(ids)) return;
  ids.forEach((value: unknown, index) => {
    const path = `/mcps/${index}`;
    const id = report.string(value, path);
    if (id === undefined || (BUILTIN_TOOL_SERVERS as readonly string[]).includes(id)) return;
    if (registered === undefined || registered.has(id)) return;
    const yours = registered.size > 0 ? `; yours: ${[...registered].sort().join(', ')}` : '';
    report.error(
      path,
      `unknown tool server "${id}"; built-in tool servers: ${BUILTIN_TOOL_SERVERS.join(', ')}${yours} (PUT /mcp/<id> registers a remote MCP server)`,
    );
  });
}

/**
 * A policy (`toolPolicies`) or a safe mark (`safeTools`) names a server the bundle enables, and a tool of
 * it (or `*`). A remote server's tool names are known only once the deploy lists them
 * (api/agents/fetch-remote-tools.ts checks them there).
 */
function checkServerTools(field: '/toolPolicies' | '/safeTools', value: unknown, ids: unknown, report: Report): void {
  if (!isRecord(value)) return;
  const enabled = Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  for (const [serverId, tools] of Object.entries(value)) {
    const path = childPointer(field, serverId);
    if (!report.clean(path)) continue;
    if (!enabled.includes(serverId)) {
      report.error(path, `names the tool server "${serverId}", which mcps does not enable`);
      continue;
    }
    const builtin = toolServer(serverId);
    if (!builtin) continue;
    for (const [name, place] of namedTools(tools)) {
      if (name !== '*' && !builtin.tools.some((tool) => tool.name === name)) {
        report.error(
          childPointer(path, place),
          `the tool server "${serverId}" has no tool "${name}"; its tools: ${builtin.tools.map((tool) => tool.name).join(', ')}, or "*"`,
        );
      }
    }
  }
}

/** The tool names of one server's entry, each with its place: a policy's keys, or a safe mark's list. */
export function namedTools(tools: unknown): Array<[name: string, place: string | number]> {
  if (Array.isArray(tools)) return tools.flatMap((name, index) => (typeof name === 'string' ? [[name, index] as [string, number]] : []));
  return isRecord(tools) ? Object.keys(tools).map((name) => [name, name]) : [];
}

function checkJsonSchema(schema: unknown, path: string, report: Report): void {
  if (!isRecord(schema) || !report.clean(path)) return;
  const problem = jsonSchemaProblem(schema);
  if (problem !== undefined) report.error(path, problem);
}
