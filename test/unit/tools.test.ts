// Built-in tool servers (time, workspace), input validation, and the tool set declared to a real
// model call against the fake model, through the step's own streamModelCall.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { streamModelCall } from '../../activities/model/stream-call.ts';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { startFakeModel, type FakeModel } from '../helpers/fakes/fake-model.ts';
import type { Bundle } from '../../contract/bundle.ts';
import { builtinTools, findBuiltinTool, modelToolSet, toolInputProblem, type BuiltinTool } from '../../activities/tools/index.ts';
import { MAX_READ_BYTES } from '../../activities/tools/workspace.ts';
import { SERVERS } from '../../activities/tools/builtin.ts';
import { TOOL_SERVERS } from '../../contract/tool-servers.ts';
import { BUILTIN_TOOL_SERVERS } from '../../contract/bundle-constants.ts';

function bundle(overrides: Partial<Bundle> = {}): Bundle {
  return {
    name: 'helper',
    model: { providerId: 'openai-compatible', modelId: 'fake-model' },
    skills: [],
    customTools: [],
    workspaceFiles: {},
    mcps: ['time', 'workspace'],
    triggers: [],
    strictSecrets: false,
    secretGrants: [],
    userChannels: [],
    workflows: {},
    ...overrides,
  };
}

function tool(name: string, from = bundle()): BuiltinTool {
  const found = findBuiltinTool(from, name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

describe('built-in tool servers', () => {
  it('are enabled by mcps, in order', () => {
    expect(builtinTools(bundle()).map((t) => t.name)).toEqual(['current_time', 'list_workspace_files', 'read_workspace_file']);
    expect(builtinTools(bundle({ mcps: ['workspace'] })).map((t) => t.name)).toEqual(['list_workspace_files', 'read_workspace_file']);
    expect(builtinTools(bundle({ mcps: [] }))).toEqual([]);
    expect(findBuiltinTool(bundle({ mcps: ['workspace'] }), 'current_time')).toBeUndefined();
    expect(findBuiltinTool(bundle(), 'toString')).toBeUndefined();
  });

  it('implement exactly the published list (GET /mcps), tool by tool, with its descriptions and schemas', () => {
    expect(TOOL_SERVERS.map((server) => server.id)).toEqual([...BUILTIN_TOOL_SERVERS]);
    for (const server of TOOL_SERVERS) {
      const implemented = SERVERS[server.id as keyof typeof SERVERS].map(({ name, description, inputSchema }) => ({
        name,
        description,
        inputSchema,
      }));
      expect(implemented, server.id).toEqual(server.tools);
    }
  });

  it('that act for an agent refuse to run without its services, as a tool error', async () => {
    const outcome = await tool('recall', bundle({ mcps: ['memory'] })).execute({ key: 'k' }, { bundle: bundle({ mcps: ['memory'] }) });
    expect(outcome).toEqual({ isError: true, output: 'recall failed: the memory server needs the agent it runs for' });
  });
});

describe('current_time', () => {
  const now = () => new Date('2025-03-30T02:05:06.000Z');

  it('answers in UTC by default', async () => {
    expect(await tool('current_time').execute({}, { bundle: bundle(), now })).toEqual({
      output: { iso: '2025-03-30T02:05:06.000Z', timezone: 'UTC', local: '2025-03-30T02:05:06+00:00', weekday: 'Sunday' },
      isError: false,
    });
  });

  it('answers in an IANA zone, daylight saving included', async () => {
    const { output } = await tool('current_time').execute({ timezone: 'Europe/Paris' }, { bundle: bundle(), now });
    expect(output).toEqual({
      iso: '2025-03-30T02:05:06.000Z',
      timezone: 'Europe/Paris',
      local: '2025-03-30T04:05:06+02:00',
      weekday: 'Sunday',
    });
    const kolkata = await tool('current_time').execute({ timezone: 'Asia/Kolkata' }, { bundle: bundle(), now });
    expect(kolkata.output).toMatchObject({ local: '2025-03-30T07:35:06+05:30' });
  });

  it('tells the model about an unknown zone instead of throwing', async () => {
    expect(await tool('current_time').execute({ timezone: 'Mars/Olympus' }, { bundle: bundle(), now })).toEqual({
      output: 'Unknown time zone "Mars/Olympus". Use an IANA time zone name such as "Europe/Paris" or "UTC".',
      isError: true,
    });
  });

  it('validates its input', async () => {
    const context = { bundle: bundle(), now };
    expect(await tool('current_time').execute({ timezone: 42 }, context)).toEqual({
      output: 'Invalid input: /timezone must be string.',
      isError: true,
    });
    expect(await tool('current_time').execute({ zone: 'UTC' }, context)).toEqual({
      output: 'Invalid input: the input has an unknown property "zone".',
      isError: true,
    });
    expect(await tool('current_time').execute('UTC', context)).toEqual({
      output: 'Invalid input: the input must be object.',
      isError: true,
    });
  });
});

describe('workspace', () => {
  const files = bundle({ workspaceFiles: { 'docs/guide.md': '# Guide\nStep one.', 'notes.txt': 'héllo' } });

  it('lists files with their UTF-8 sizes', async () => {
    expect(await tool('list_workspace_files', files).execute({}, { bundle: files })).toEqual({
      output: {
        files: [
          { path: 'docs/guide.md', bytes: 17 },
          { path: 'notes.txt', bytes: 6 },
        ],
      },
      isError: false,
    });
  });

  it('reads a file, forgiving a leading ./ or /', async () => {
    const read = tool('read_workspace_file', files);
    expect(await read.execute({ path: 'docs/guide.md' }, { bundle: files })).toEqual({
      output: { path: 'docs/guide.md', content: '# Guide\nStep one.' },
      isError: false,
    });
    expect((await read.execute({ path: './notes.txt' }, { bundle: files })).output).toEqual({ path: 'notes.txt', content: 'héllo' });
  });

  it('answers an unknown path with the files there are', async () => {
    const read = tool('read_workspace_file', files);
    expect(await read.execute({ path: 'missing.md' }, { bundle: files })).toEqual({
      output: 'No file "missing.md" in the workspace. Files: docs/guide.md, notes.txt',
      isError: true,
    });
    expect((await read.execute({ path: '__proto__' }, { bundle: files })).isError).toBe(true);
    expect(await read.execute({}, { bundle: files })).toEqual({
      output: 'Invalid input: the input is missing the required property "path".',
      isError: true,
    });
  });

  it('cuts a huge file at a character boundary, with a note', async () => {
    const big = bundle({ workspaceFiles: { 'big.txt': 'é'.repeat(MAX_READ_BYTES) } });
    const { output, isError } = await tool('read_workspace_file', big).execute({ path: 'big.txt' }, { bundle: big });
    expect(isError).toBe(false);
    const result = output as { content: string; truncated: boolean; note: string };
    expect(result.truncated).toBe(true);
    expect(result.content).toBe('é'.repeat(MAX_READ_BYTES / 2));
    expect(result.note).toBe(`The file has ${MAX_READ_BYTES * 2} bytes; only the first ${MAX_READ_BYTES} are shown.`);
  });
});

describe('toolInputProblem', () => {
  it('checks custom tool parameters in either dialect', () => {
    const draft07 = { type: 'object', properties: { unit: { enum: ['C', 'F'] } }, required: ['unit'] };
    expect(toolInputProblem(draft07, { unit: 'C' })).toBeUndefined();
    expect(toolInputProblem(draft07, { unit: 'K' })).toBe('Invalid input: /unit must be equal to one of the allowed values ("C", "F").');
    const draft2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'number' }] };
    expect(toolInputProblem(draft2020, [1])).toBeUndefined();
    expect(toolInputProblem(draft2020, ['x'])).toBe('Invalid input: /0 must be number.');
  });
});

describe('modelToolSet with a real model call', () => {
  let fake: FakeModel;
  beforeAll(async () => {
    fake = await startFakeModel();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  const withCustom = bundle({
    mcps: ['time'],
    customTools: [
      {
        id: 'lookup_order',
        description: 'Look up an order by id',
        parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      },
      // Takes a built-in's name: the built-in is declared, so what runs is what the model was told.
      { id: 'current_time', description: 'shadowed', parameters: { type: 'object' } },
    ],
  });

  async function step(tools: ReturnType<typeof modelToolSet>) {
    const model = createOpenAICompatible({ name: 'openai-compatible', baseURL: fake.baseUrl, includeUsage: true }).chatModel('fake-model');
    const stream = streamModelCall({
      model,
      instructions: undefined,
      messages: [{ role: 'user', content: 'What time is it?' }],
      tools,
      abortSignal: new AbortController().signal,
    });
    const calls: Array<{ toolName: string; input: unknown; invalid?: boolean }> = [];
    let finishReason: string | undefined;
    for await (const part of stream) {
      if (part.type === 'tool-call') calls.push({ toolName: part.toolName, input: part.input, ...(part.invalid ? { invalid: true } : {}) });
      if (part.type === 'tool-result') throw new Error('a tool was executed by the SDK');
      if (part.type === 'model-call-end') finishReason = part.finishReason;
    }
    return { calls, finishReason };
  }

  it('declares built-in and custom tools, without execute', async () => {
    const tools = modelToolSet(withCustom);
    // ask_my_user is every agent's; the bundle adds the rest.
    expect(Object.keys(tools)).toEqual(['ask_my_user', 'current_time', 'lookup_order']);
    for (const declared of Object.values(tools)) expect(declared.execute).toBeUndefined();

    fake.enqueue({ text: 'It is noon.' });
    await step(tools);
    const declared = fake.requests[0]!.body.tools!;
    expect(declared.map((t) => t.function.name)).toEqual(['ask_my_user', 'current_time', 'lookup_order']);
    expect(declared[0]!.function.description).toMatch(/enough|all the context needed to decide without asking you again/);
    expect(declared[0]!.function.parameters).toMatchObject({ required: ['question'] });
    expect(declared[1]!.function.description).toMatch(/^Get the current date and time/);
    expect(declared[2]!.function).toMatchObject({
      description: 'Look up an order by id',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    });
  });

  it('stops at a scripted tool call, with the input parsed, and the built-in tool runs it', async () => {
    fake.enqueue({ toolCalls: [{ id: 'call_1', name: 'current_time', arguments: { timezone: 'Asia/Tokyo' } }] });
    const { calls, finishReason } = await step(modelToolSet(withCustom));
    expect(finishReason).toBe('tool-calls');
    expect(calls).toEqual([{ toolName: 'current_time', input: { timezone: 'Asia/Tokyo' } }]);
    const outcome = await findBuiltinTool(withCustom, 'current_time')!.execute(calls[0]!.input, { bundle: withCustom });
    expect(outcome).toMatchObject({ isError: false, output: { timezone: 'Asia/Tokyo' } });
  });

  it('passes malformed arguments on as an invalid call, which validation then explains', async () => {
    fake.enqueue({ toolCalls: [{ name: 'current_time', arguments: '{"timezone": ' }] });
    const { calls } = await step(modelToolSet(withCustom));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolName: 'current_time', invalid: true });
    const outcome = await findBuiltinTool(withCustom, 'current_time')!.execute(calls[0]!.input, { bundle: withCustom });
    expect(outcome.isError).toBe(true);
  });
});
