// A large, valid agent bundle for the deploy benchmark, made of what real large bundles are made of:
// long instructions, many workspace files, custom tools with nested parameter schemas, triggers of
// both kinds, a secret-backed channel and a workflow graph. Deterministic, so every run validates
// the same text.

/** A fixed pseudo-random sequence (LCG), so the text varies like prose but never between runs. */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = (
  'agent service deploy revision session turn event stream model provider tool schema secret grant channel ' +
  'approval workflow node trigger cron webhook workspace file skill reply customer order invoice refund ticket ' +
  'priority escalate summarise classify verify confirm account region queue latency durable retry budget report'
).split(' ');

function prose(random: () => number, bytes: number): string {
  let text = '';
  while (text.length < bytes) {
    const length = 8 + Math.floor(random() * 12);
    const words = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)]!);
    text += `${words.join(' ')}.${random() < 0.2 ? '\n\n' : ' '}`;
  }
  return text;
}

/** A tool whose parameters use most of JSON Schema: nesting, arrays of objects, enums, patterns, formats, oneOf. */
function customTool(index: number, random: () => number) {
  return {
    id: `tool_${String(index).padStart(2, '0')}`,
    description: prose(random, 200),
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['query', 'filters'],
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 2000, description: prose(random, 80) },
        limit: { type: 'integer', minimum: 1, maximum: 500, default: 20 },
        sort: { enum: ['newest', 'oldest', 'relevance', 'priority'] },
        since: { type: 'string', format: 'date-time' },
        contact: { type: 'string', format: 'email' },
        reference: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4,8}$' },
        filters: {
          type: 'array',
          maxItems: 20,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['field', 'op'],
            properties: {
              field: { enum: ['status', 'region', 'owner', 'amount', 'created'] },
              op: { enum: ['eq', 'ne', 'lt', 'gt', 'in'] },
              value: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' }, maxItems: 50 }] },
            },
          },
        },
        options: {
          type: 'object',
          additionalProperties: false,
          properties: {
            includeArchived: { type: 'boolean', default: false },
            fields: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: '^[a-z_]{1,32}$' } },
            page: {
              type: 'object',
              required: ['size'],
              properties: { size: { type: 'integer', minimum: 1, maximum: 100 }, cursor: { type: 'string', maxLength: 200 } },
            },
          },
        },
      },
    },
  };
}

export interface GeneratedBundle {
  text: string;
  bytes: number;
  workspaceFiles: number;
  customTools: number;
  triggers: number;
}

/** The bundle named `name`, grown with workspace files until its text is at least `targetBytes`. */
export function generateBundle(name: string, targetBytes: number): GeneratedBundle {
  const random = sequence(20_240_601);
  const customTools = Array.from({ length: 20 }, (_, index) => customTool(index, random));
  const workspaceFiles: Record<string, string> = {};
  const bundle = {
    $schema: 'https://agent-service.dev/schema/bundle.json',
    name,
    model: { providerId: 'openai-compatible', modelId: 'bench-model' },
    instructions: prose(random, 16_000),
    skills: [
      'Answer in the language of the customer.',
      { name: 'refunds', path: 'skills/refunds.md' },
      { name: 'escalation', path: 'skills/escalation.md' },
    ],
    customTools,
    workspaceFiles,
    mcps: ['time', 'workspace'],
    triggers: [
      { kind: 'webhook', suffix: 'inbound-ticket' },
      { kind: 'webhook', suffix: 'triage', workflow: 'triage' },
      { kind: 'cron', expression: '*/15 9-17 * * MON-FRI', timezone: 'Europe/Paris', message: 'Check the queue.' },
      { kind: 'cron', expression: '@daily', workflow: 'triage' },
    ],
    strictSecrets: false,
    secretGrants: ['SLACK_BOT_TOKEN'],
    userChannels: [{ provider: 'slack', config: { token: '{{secrets.SLACK_BOT_TOKEN}}', channel: '#support' }, answerVia: 'signed-url' }],
    workflows: {
      triage: {
        start: 'classify',
        nodes: {
          classify: { type: 'agent', prompt: 'Classify the ticket and propose an action.', next: 'confirm' },
          confirm: {
            type: 'approval',
            question: 'Apply the proposed action?',
            options: ['approve', 'reject'],
            next: { approve: 'act', reject: 'done' },
            expiresInMs: 86_400_000,
            onExpired: 'done',
          },
          act: { type: 'agent', prompt: 'Apply the approved action and report.', next: 'done' },
          done: { type: 'end' },
        },
      },
    },
  };
  workspaceFiles['skills/refunds.md'] = prose(random, 3_000);
  workspaceFiles['skills/escalation.md'] = prose(random, 3_000);
  // A comment and a trailing comma, as hand-written service.jsonc files have them.
  const render = () => `// Generated by bench/deploy-bundle.ts\n${JSON.stringify(bundle, null, 2).replace(/\n}$/, ',\n}')}\n`;
  let text = render();
  for (let index = 0; Buffer.byteLength(text) < targetBytes; index++) {
    workspaceFiles[`docs/section-${String(index).padStart(3, '0')}.md`] = prose(random, 2_500);
    text = render();
  }
  return {
    text,
    bytes: Buffer.byteLength(text),
    workspaceFiles: Object.keys(workspaceFiles).length,
    customTools: customTools.length,
    triggers: bundle.triggers.length,
  };
}
