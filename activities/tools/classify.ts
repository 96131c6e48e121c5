// Who runs each tool call of a model step. A custom tool (the bundle's `customTools`, not shadowed by a
// built-in tool) is run by the client: its input is checked against the tool's `parameters` first, and
// input that does not match goes back to the model as an error, so a client is only asked with valid
// input. Everything else the service runs; a remote MCP server's tool is checked the same way first. The check runs in a thread with a time budget: the schema
// is the tenant's, the worker everyone's. Worked out in the step's activity, from the bundle, so the
// turn workflow decides from the step's recorded result (deterministic on replay).
import type { ApprovalTeam, Bundle, ToolAsk } from '../../contract/bundle.ts';
import type { LoadableSkill } from '../../lib/skills.ts';
import type { ToolCall } from '../../core/turn-types.ts';
import { ASK_MY_USER } from '../../lib/workflow-safe/ask-my-user.ts';
import { APPROVAL_LIMITS, parseApprovalRequest } from '../../lib/workflow-safe/approvals.ts';
import type { TeamRequest } from '../../lib/workflow-safe/approval-quorum.ts';
import { isRecord } from '../../lib/workflow-safe/is-record.ts';
import { builtinServerOf, findBuiltinTool } from './builtin.ts';
import { policyOf, refusedToolText, toolApprovalQuestion, type ToolCallToApprove } from '../../core/tool-policies.ts';
import { toolInputProblem } from './validate-input.ts';
import { isRemoteTool } from './remote.ts';
import type { BuiltinTool } from './types.ts';
import type { SchemaChecks } from './schema-checks.ts';
import { agentToolName, readAgentCallInput, type CallableAgent } from '../../lib/workflow-safe/agent-tools.ts';

/** As many schema errors as a model is told for one call. */
const MAX_REPORTED = 5;

/** What a policy's question needs beyond the bundle: read only when some call is to be approved. */
export interface ApprovalContext {
  lastUserMessage(): Promise<string | undefined>;
  /** False for a turn of older code, which would run the call unasked: the call is refused instead. */
  turnAsks: boolean;
  /** Why the approvers an ask_my_user call names cannot be asked (not in the user's directory, say), or undefined. */
  teamProblem(team: TeamRequest, expiresInMs: number): Promise<string | undefined>;
}

/**
 * An ask_my_user call that names approvers: checked against the user's directory here, where the step can
 * read it, so the model is told at once of a name that is not there; marked `asksTeam` when it may ask them.
 * The rest of its input is the turn's to check (workflows/ask-user.ts), as for any ask_my_user call.
 */
async function askMyUserCall(call: ToolCall, approvals: ApprovalContext | undefined): Promise<ToolCall> {
  if (!isRecord(call.input) || call.input.approvers === undefined) return call;
  // Older code (a rolling deploy) would read the approvers as an unknown field: refused there, not here.
  if (!approvals?.turnAsks) return call;
  const parsed = parseApprovalRequest(
    call.input,
    { defaultExpiryMs: APPROVAL_LIMITS.minExpiryMs, maxExpiryMs: Number.MAX_SAFE_INTEGER },
    { team: true },
  );
  if (!parsed.ok || !parsed.request.team) return call;
  const problem = await approvals.teamProblem(parsed.request.team, parsed.request.expiresInMs);
  return problem === undefined ? { ...call, asksTeam: true } : { ...call, inputError: problem };
}

export async function classifyToolCalls(
  checks: SchemaChecks,
  bundle: Pick<Bundle, 'name' | 'mcps' | 'customTools' | 'toolPolicies'>,
  skills: readonly LoadableSkill[],
  calls: readonly ToolCall[],
  remote: readonly BuiltinTool[] = [],
  approvals?: ApprovalContext,
  agents: readonly CallableAgent[] = [],
): Promise<ToolCall[]> {
  const checked = await Promise.all(
    calls.map(async (call): Promise<ToolCall> => {
      // A call of another agent, unless another tool has its name (the tool set declares that one, and
      // deploy refuses such a bundle now: a revision stored before that check runs what the model was shown).
      const builtin = call.toolName === ASK_MY_USER ? undefined : findBuiltinTool(bundle, call.toolName, skills, remote);
      const taken = builtin !== undefined || bundle.customTools.some((tool) => tool.id === call.toolName);
      if (!taken && agents.some((agent) => agentToolName(agent.name) === call.toolName)) {
        const read = readAgentCallInput(call.input);
        return 'problem' in read ? { ...call, inputError: read.problem } : { ...call, executor: 'agent' };
      }
      if (call.toolName === ASK_MY_USER) return askMyUserCall(call, approvals);
      // A built-in tool checks its own input (activities/tools/define.ts), against a schema of ours.
      if (builtin && !isRemoteTool(builtin)) return call;
      const custom = builtin ? undefined : bundle.customTools.find((tool) => tool.id === call.toolName);
      const schema = builtin?.inputSchema ?? custom?.parameters;
      if (!schema) return call;
      // A tenant's (or a remote server's) schema: checked off the event loop, within SCHEMA_CHECK_TIMEOUT_MS (schema-checks.ts).
      const verdict = await checks.check(schema, call.input, 'the input');
      if (verdict.valid) return custom ? { ...call, executor: 'client' } : call;
      const problem =
        'unusable' in verdict
          ? `The input could not be checked: ${verdict.unusable}.`
          : `Invalid input: ${verdict.errors.slice(0, MAX_REPORTED).join('; ') || 'it does not match the input schema'}.`;
      return { ...call, inputError: problem };
    }),
  );
  if (!bundle.toolPolicies) return checked;
  const decided: ToolCall[] = [];
  let lastUserMessage: Promise<string | undefined> | undefined;
  for (const call of checked) {
    const verdict = policyVerdict(bundle, skills, remote, call);
    if (!('ask' in verdict)) {
      decided.push(verdict);
      continue;
    }
    if (approvals && !approvals.turnAsks) {
      decided.push({
        ...call,
        inputError: `The tool "${call.toolName}" runs only once your user approves it, and this turn cannot ask now; it was not run. Try again.`,
      });
      continue;
    }
    // Read once, and only when some call is to be approved.
    lastUserMessage ??= approvals ? approvals.lastUserMessage() : Promise.resolve(undefined);
    const question = toolApprovalQuestion({ ...verdict.ask, lastUserMessage: await lastUserMessage });
    decided.push({
      ...call,
      approval: {
        question,
        ...(verdict.team ? { team: verdict.team } : {}),
        ...(verdict.validForMs !== undefined ? { validForMs: verdict.validForMs } : {}),
      },
    });
  }
  return decided;
}

/** The call as its policy leaves it (refused by `never`), or what its question is about (`ask`). */
function policyVerdict(
  bundle: Pick<Bundle, 'name' | 'mcps' | 'toolPolicies'>,
  skills: readonly LoadableSkill[],
  remote: readonly BuiltinTool[],
  call: ToolCall,
): ToolCall | { ask: Omit<ToolCallToApprove, 'lastUserMessage'>; team?: ApprovalTeam; validForMs?: number } {
  // Policies are about tool servers' tools: a client's tools and other agents (which ask their own) have none.
  if (call.inputError !== undefined || call.executor !== undefined || call.toolName === ASK_MY_USER) return call;
  const tool = findBuiltinTool(bundle, call.toolName, skills, remote);
  const server = tool && (isRemoteTool(tool) ? { id: tool.serverId, kind: 'remote' as const } : builtinServerOf(bundle, call.toolName));
  if (!tool || !server) return call;
  const policy = policyOf(bundle.toolPolicies, server.id, call.toolName);
  if (policy === 'always') return call;
  if (policy === 'never') return { ...call, inputError: refusedToolText(call.toolName) };
  // Input the tool would refuse is refused now, rather than asked about and then refused.
  const problem = isRemoteTool(tool) ? undefined : toolInputProblem(tool.inputSchema, call.input);
  if (problem !== undefined) return { ...call, inputError: problem };
  return {
    ask: { agentName: bundle.name, serverId: server.id, serverKind: server.kind, toolName: call.toolName, input: call.input },
    // `{ask: {approvers, ...}}`: a team decides (checked against the user's directory at deploy).
    ...(typeof policy === 'object' ? askOptions(policy.ask) : {}),
  };
}

/** The options of an `{ask: {...}}` policy: a team where approvers are named, and the approval's validity. */
function askOptions(ask: ToolAsk): { team?: ApprovalTeam; validForMs?: number } {
  const { validForMs, approvers, ...rule } = ask;
  return {
    ...(approvers !== undefined ? { team: { approvers, ...rule } } : {}),
    ...(validForMs !== undefined ? { validForMs } : {}),
  };
}
