// Workflow graphs: every reference names a node, approval branches are options of their node, and
// nodes nothing leads to are pointed out (a warning: a half-built graph may still be deployed).
import { parseTeam } from '../workflow-safe/approval-quorum.ts';
import { childPointer } from './pointer.ts';
import { isRecord, type Json, type Report } from './report.ts';
import { templateNodeReferences } from '../workflow-safe/graph-template.ts';
import { parseApprovalRequest } from '../workflow-safe/approvals.ts';

export function checkWorkflows(bundle: Json, report: Report): void {
  if (!isRecord(bundle.workflows)) return;
  // The agents an agent node may name: those the bundle may call.
  const callable = new Set(
    (Array.isArray(bundle.agents) ? bundle.agents : []).flatMap((entry) =>
      isRecord(entry) && typeof entry.name === 'string' ? [entry.name] : [],
    ),
  );
  for (const [name, workflow] of Object.entries(bundle.workflows)) {
    if (isRecord(workflow) && isRecord(workflow.nodes)) checkGraph(name, workflow, workflow.nodes, report, callable);
  }
}

function checkGraph(name: string, workflow: Json, nodes: Json, report: Report, callable: ReadonlySet<string>): void {
  const base = childPointer('/workflows', name);
  const edges = new Map<string, string[]>();
  /** The node id at `path` when it names a node of this workflow; reports it otherwise. */
  const target = (value: unknown, path: string): string | undefined => {
    const id = report.string(value, path);
    if (id === undefined) return undefined;
    if (Object.hasOwn(nodes, id)) return id;
    report.error(path, `"${id}" is not a node of workflow "${name}"`);
    return undefined;
  };

  /** `{{nodes.<id>.…}}` in a prompt or question must name a node of this workflow. */
  const checkTemplate = (value: unknown, path: string): void => {
    const text = typeof value === 'string' ? report.string(value, path) : undefined;
    if (text === undefined) return;
    const unknown = [...new Set(templateNodeReferences(text).filter((id) => !Object.hasOwn(nodes, id)))];
    if (unknown.length > 0) report.error(path, `refers to ${unknown.map((id) => `"${id}"`).join(', ')}, not a node of workflow "${name}"`);
  };

  const start = target(workflow.start, `${base}/start`);
  for (const [id, node] of Object.entries(nodes)) {
    if (!isRecord(node)) continue;
    const at = childPointer(base, 'nodes', id);
    const next: (string | undefined)[] = [];
    checkTemplate(
      node.type === 'agent' ? node.prompt : node.type === 'approval' ? node.question : undefined,
      `${at}/${node.type === 'agent' ? 'prompt' : 'question'}`,
    );
    if (node.type === 'agent') next.push(target(node.next, `${at}/next`));
    // A node run by another agent names one the bundle may call (checked further at deploy: api/agents/callable-agents.ts).
    const callee = node.type === 'agent' ? report.string(node.agent, `${at}/agent`) : undefined;
    if (callee !== undefined && !callable.has(callee))
      report.error(`${at}/agent`, `the agent "${callee}" is not in \`agents\`, the agents this one may call`);
    if (node.type === 'approval') {
      const options = report.strings(node.options, `${at}/options`);
      if (options) checkOptions(options, `${at}/options`, report);
      // Its approvers' names and rule (whether each is in the user's directory is checked at deploy).
      const team = ['approvers', 'quorum', 'denyWins'].every((field) => report.clean(`${at}/${field}`))
        ? parseTeam(node, options ?? [])
        : undefined;
      if (team && !team.ok) report.error(`${at}${team.path}`, team.error);
      const branches = isRecord(node.next) ? node.next : {};
      for (const [option, value] of Object.entries(branches)) {
        const path = childPointer(at, 'next', option);
        if (options && !options.includes(option)) report.error(path, `"${option}" is not one of the options (${options.join(', ')})`);
        next.push(target(value, path));
      }
      for (const option of options ?? []) {
        if (!Object.hasOwn(branches, option))
          report.warn(`${at}/next`, `option "${option}" has no next node; choosing it ends the workflow`);
      }
      next.push(target(node.onExpired, `${at}/onExpired`));
    }
    edges.set(
      id,
      next.filter((value) => value !== undefined),
    );
  }

  if (start === undefined) return;
  const reached = new Set<string>([start]);
  const queue = [start];
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    for (const following of edges.get(id) ?? []) {
      if (!reached.has(following)) {
        reached.add(following);
        queue.push(following);
      }
    }
  }
  for (const id of Object.keys(nodes)) {
    if (!reached.has(id)) report.warn(childPointer(base, 'nodes', id), `is not reachable from the start node "${start}"`);
  }
}

/** The option rules of every approval (lib/workflow-safe/approvals.ts): replies are matched by name ignoring case, or by number. */
function checkOptions(options: readonly string[], path: string, report: Report): void {
  const parsed = parseApprovalRequest(
    { question: 'q', options: [...options] },
    { defaultExpiryMs: 1_000, maxExpiryMs: Number.MAX_SAFE_INTEGER },
  );
  if (!parsed.ok) {
    report.error(path, parsed.error);
    return;
  }
  const untrimmed = options.find((option) => option !== option.trim());
  if (untrimmed !== undefined) report.error(path, `option "${untrimmed}" has surrounding spaces`);
}
