// The bundle as the service sees it after validation: defaults applied, `$schema` dropped. Written
// by hand beside schema/bundle.schema.json; a test checks that every schema property appears here.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface ModelRef {
  providerId: string;
  modelId: string;
}

export type Skill = string | { name: string; path: string } | { name: string; url: string };

export interface CustomTool {
  id: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: JsonObject;
}

export interface WebhookTrigger {
  kind: 'webhook';
  suffix?: string;
  workflow?: string;
}

export interface CronTrigger {
  kind: 'cron';
  expression: string;
  timezone?: string;
  message?: string;
  workflow?: string;
}

export type Trigger = WebhookTrigger | CronTrigger;

export interface JsonReply {
  schema: JsonObject;
  retries: number;
  defaults?: JsonObject;
  allowSubtasks: boolean;
}

export interface CommandDef {
  template: string;
  agent?: string;
  model?: ModelRef;
  subtask?: boolean;
}

/** Another agent of the same user this one may call (docs/tools.md, "Calling other agents"). */
export interface CallableAgentRef {
  name: string;
  /** Calls run this revision; without it, the callee's live revision at each call. */
  revision?: number;
  /** The tool's description; without it, the start of the callee's instructions. */
  description?: string;
}

export type ChannelProvider = 'webhook' | 'slack' | 'telegram' | 'email';

export interface UserChannel {
  provider: ChannelProvider;
  /** Values are plain settings or `{{secrets.KEY}}` references. */
  config: Record<string, string | number | boolean>;
  answerVia: 'reply' | 'signed-url';
}

export interface AgentNode {
  type: 'agent';
  prompt: string;
  /** Another agent (one of the bundle's `agents`) whose turn, in a child session, runs the prompt. */
  agent?: string;
  next?: string;
}

/** Who may answer an approval and how many must agree (docs/approvals.md, "Several approvers"). */
export interface ApprovalTeam {
  approvers: string[];
  quorum?: number | 'all';
  denyWins?: boolean;
  /** Those who have not answered are asked again this often. */
  remind?: { everyMs: number };
  /** Approvers added once the approval has waited `afterMs`, in order. */
  escalate?: Array<{ afterMs: number; to: string[] }>;
}

export interface ApprovalNode extends Partial<ApprovalTeam> {
  type: 'approval';
  question: string;
  options: string[];
  /** Option to the id of the node that follows; an option without an entry ends the workflow. */
  next: Record<string, string>;
  expiresInMs?: number;
  onExpired?: string;
}

export interface EndNode {
  type: 'end';
}

export type WorkflowNode = AgentNode | ApprovalNode | EndNode;

export interface Workflow {
  start: string;
  nodes: Record<string, WorkflowNode>;
}

/** What the service does with a call of a tool (docs/approvals.md, "Approval policies on tool calls"). */
export type ToolPolicy = 'always' | 'ask' | 'never' | { ask: ToolAsk };

/** `{ask: {...}}`: asked with options. Approvers decide where named; an approval older than `validForMs` when the call is about to run is asked again. */
export interface ToolAsk extends Partial<ApprovalTeam> {
  validForMs?: number;
}

export interface Bundle {
  name: string;
  model: ModelRef;
  instructions?: string;
  skills: Skill[];
  customTools: CustomTool[];
  workspaceFiles: Record<string, string>;
  mcps: string[];
  /**
   * Per tool server id (in `mcps`), per tool name or `*`: run at once (`always`, also what a tool with no
   * policy does), ask the agent's user first (`ask`), or refuse (`never`). Absent on bundles stored before it.
   */
  toolPolicies?: Record<string, Record<string, ToolPolicy>>;
  /**
   * Per tool server id (in `mcps`), tool names or `*`: tools that change nothing anyone sees (neither
   * outside the service nor the agent's notes), which an eval replaying a recorded session may run for
   * real when a call matches no recorded one (its `unmatched: "live"`); on `http_request`, GET requests
   * only. Absent on bundles stored before it, and on those that mark none.
   */
  safeTools?: Record<string, string[]>;
  triggers: Trigger[];
  strictSecrets: boolean;
  secretGrants: string[];
  jsonReply?: JsonReply;
  command?: Record<string, CommandDef>;
  /** Absent on bundles that call no agent (and on those stored before agents could call agents). */
  agents?: CallableAgentRef[];
  userChannels: UserChannel[];
  workflows: Record<string, Workflow>;
}
