// Properties of validateBundle over generated input: it never throws, and it never says ok to
// something the published schema rejects. The schema is compiled afresh here from the file, so a
// mistake in how the service loads or applies it cannot hide itself.
import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateBundle, type BundleValidation } from '../../lib/bundle/index.ts';

const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

const schema = JSON.parse(fs.readFileSync(new URL('../../schema/bundle.schema.json', import.meta.url), 'utf8')) as object;
const freshAjv = new Ajv2020({ allErrors: false, useDefaults: true, strict: true, allowUnionTypes: true, discriminator: true });
addFormats(freshAjv);
const schemaAccepts = freshAjv.compile(schema);

const context = { existingSecretKeys: new Set(['SLACK_TOKEN', 'OPENROUTER_API_KEY']) };

/** A valid bundle touching every part of the schema, as a value to mutate. */
const VALID = {
  $schema: 'https://agent-service.dev/schema/bundle.json',
  name: 'support-bot',
  model: { providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4' },
  instructions: 'Answer support questions.',
  skills: ['summarize', { name: 'faq', path: 'docs/faq.md' }, { name: 'style', url: 'https://example.com/style.md' }],
  customTools: [{ id: 'lookup', description: 'Looks up an order', parameters: { type: 'object', properties: { id: { type: 'string' } } } }],
  workspaceFiles: { 'docs/faq.md': '# FAQ', 'skills/summarize/SKILL.md': 'Summarize briefly.' },
  mcps: ['time', 'workspace'],
  triggers: [
    { kind: 'webhook', suffix: 'mail', workflow: 'triage' },
    { kind: 'cron', expression: '0 9 * * MON-FRI', timezone: 'Europe/Paris', message: 'digest' },
  ],
  strictSecrets: true,
  secretGrants: ['SLACK_TOKEN'],
  jsonReply: { schema: { type: 'object' }, retries: 2, defaults: {}, allowSubtasks: true },
  command: { review: { template: 'Review ${1}', agent: 'reviewer', model: { providerId: 'openai', modelId: 'gpt-4.1' }, subtask: false } },
  userChannels: [{ provider: 'slack', config: { token: '{{secrets.SLACK_TOKEN}}', channel: 'C1' }, answerVia: 'signed-url' }],
  workflows: {
    triage: {
      start: 'draft',
      nodes: {
        draft: { type: 'agent', prompt: 'Draft', next: 'check' },
        check: {
          type: 'approval',
          question: 'Send?',
          options: ['send', 'revise'],
          next: { send: 'done', revise: 'draft' },
          expiresInMs: 60000,
        },
        done: { type: 'end' },
      },
    },
  },
};

/** Values that look right somewhere in a bundle, so mutations reach the semantic checks too. */
const plausible = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom<unknown>(
    'time',
    'workspace',
    'browser',
    'cron',
    'webhook',
    'agent',
    'approval',
    'end',
    '@daily',
    '0 9 * * *',
    '61 * * * *',
    'done',
    'draft',
    'check',
    'nowhere',
    'send',
    'openai',
    'groq',
    'SLACK_TOKEN',
    'MISSING',
    '{{secrets.OTHER}}',
    'Europe/Paris',
    'Mars/Base',
    'docs/faq.md',
    'ask_my_user',
    'lookup',
    1000,
    10,
    11,
    -1,
    true,
    [],
    {},
    null,
    { type: 'strng' },
    { kind: 'cron' },
    { type: 'end' },
  ),
);

type Token = string | number;
type Mutation = { pick: number; op: 'delete' | 'replace' | 'add' | 'duplicate'; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  op: fc.constantFrom('delete', 'replace', 'add', 'duplicate'),
  key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('kind', 'type', 'next', 'id', 'extra', 'workflow', 'path', 'url')),
  value: plausible,
});

function paths(value: unknown, prefix: Token[] = []): Token[][] {
  const here = [prefix];
  if (Array.isArray(value)) return here.concat(...value.map((item, index) => paths(item, [...prefix, index])));
  if (value !== null && typeof value === 'object') {
    return here.concat(...Object.entries(value).map(([key, child]) => paths(child, [...prefix, key])));
  }
  return here;
}

function mutate(root: unknown, { pick, op, key, value: generated }: Mutation): unknown {
  // A copy: later steps change the tree in place, and fast-check reuses its values (shrinking,
  // replays), so changing them would feed it cyclic or altered values.
  const value = structuredClone(generated);
  const all = paths(root);
  const path = all[pick % all.length] ?? [];
  if (path.length === 0) return op === 'replace' ? value : root;
  const parent = path.slice(0, -1).reduce<unknown>((node, token) => (node as Record<Token, unknown>)[token], root) as Record<
    Token,
    unknown
  >;
  const last = path[path.length - 1] as Token;
  const target = parent[last];
  if (op === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (op === 'replace') parent[last] = value;
  else if (op === 'add' && target !== null && typeof target === 'object' && !Array.isArray(target)) {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else if (op === 'duplicate' && Array.isArray(parent)) parent.push(structuredClone(target));
  else parent[last] = value;
  return root;
}

/** What must hold for every input: an ok bundle satisfies the schema and survives a second round. */
function checkResult(result: BundleValidation, input: unknown): void {
  if (result.ok) {
    expect(schemaAccepts(structuredClone(result.bundle)), JSON.stringify(schemaAccepts.errors)).toBe(true);
    if (input !== undefined) expect(schemaAccepts(JSON.parse(JSON.stringify(input)))).toBe(true);
    const again = validateBundle(JSON.stringify(result.bundle), context);
    expect(again).toEqual(result);
  } else {
    expect(result.errors.length).toBeGreaterThan(0);
    for (const error of result.errors) {
      expect(typeof error.path).toBe('string');
      expect(error.path === '' || error.path.startsWith('/')).toBe(true);
      expect(error.message.length).toBeGreaterThan(0);
    }
  }
}

describe('validateBundle under generated input', () => {
  it('accepts the base bundle of the mutations', () => {
    const result = validateBundle(JSON.stringify(VALID), context);
    expect(result).toMatchObject({ ok: true, warnings: [] });
  });

  it('never throws on random text, lone surrogates included', () => {
    const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
    const text = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: anyUnit, maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
    );
    fc.assert(
      fc.property(text, (input) => checkResult(validateBundle(input, context), undefined)),
      { numRuns: 500 },
    );
  }, 60_000);

  it('never throws on random JSON and never accepts what the schema rejects', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const result = validateBundle(JSON.stringify(value), context);
        checkResult(result, value);
        if (!schemaAccepts(JSON.parse(JSON.stringify(value ?? null)))) expect(result.ok).toBe(false);
      }),
      { numRuns: 500 },
    );
  }, 60_000);

  it('never accepts a mutated bundle the schema rejects', () => {
    const outcomes = { ok: 0, schemaRejected: 0, checksRejected: 0 };
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const value = mutations.reduce<unknown>((node, step) => mutate(node, step), structuredClone(VALID));
        const text = JSON.stringify(value) ?? 'undefined';
        const result = validateBundle(text, context);
        checkResult(result, value);
        const rejectedBySchema = value === undefined || !schemaAccepts(JSON.parse(text));
        if (rejectedBySchema) expect(result.ok).toBe(false);
        outcomes[result.ok ? 'ok' : rejectedBySchema ? 'schemaRejected' : 'checksRejected'] += 1;
      }),
      { numRuns: 1000 },
    );
    // The mutations must explore all three outcomes, or the property proves little.
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(outcomes.schemaRejected).toBeGreaterThan(0);
    expect(outcomes.checksRejected).toBeGreaterThan(0);
  }, 60_000);

  it('never throws on damaged JSONC text', () => {
    const source = JSON.stringify(VALID, null, 2);
    const damage = fc.array(
      fc.record({
        at: fc.nat(source.length),
        cut: fc.nat(4),
        insert: fc.constantFrom('', ',', '}', ']', '"', '/*', '//', '\n', '[', '{', ':', '\\', 'x'),
      }),
      {
        minLength: 1,
        maxLength: 4,
      },
    );
    fc.assert(
      fc.property(damage, (edits) => {
        const text = edits.reduce((current, { at, cut, insert }) => current.slice(0, at) + insert + current.slice(at + cut), source);
        checkResult(validateBundle(text, context), undefined);
      }),
      { numRuns: 500 },
    );
  }, 60_000);
});
