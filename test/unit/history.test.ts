// Stored messages to AI SDK model messages, checked both as values and by what a real model call
// (the step's own streamModelCall) sends to the fake Chat Completions server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelMessage } from 'ai';
import { streamModelCall } from '../../activities/model/stream-call.ts';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { startFakeModel, type FakeModel } from '../helpers/fakes/fake-model.ts';
import type { MessagePart, MessageRole, MessageStatus, MessageView } from '../../contract/events.ts';
import { MISSING_TOOL_RESULT, fileUrls, toModelMessages } from '../../activities/model/history.ts';

let sequence = 0;
function message(role: MessageRole, parts: MessagePart[], status: MessageStatus = 'complete'): MessageView {
  sequence += 1;
  return { id: `msg_${sequence}`, role, parts, status, turnId: null, createdAt: new Date(sequence * 1000).toISOString() };
}

const conversation: MessageView[] = [
  message('user', [{ type: 'text', text: 'What time is it in Tokyo?' }]),
  message('assistant', [
    { type: 'text', text: '' },
    { type: 'text', text: 'Let me check.' },
    { type: 'tool-call', toolCallId: 'call_1', toolName: 'current_time', input: { timezone: 'Asia/Tokyo' } },
  ]),
  message('tool', [
    {
      type: 'tool-result',
      toolCallId: 'call_1',
      toolName: 'current_time',
      output: { iso: '2025-01-01T00:00:00.000Z', timezone: 'Asia/Tokyo' },
    },
  ]),
  message('assistant', [{ type: 'text', text: 'It is 9 am in Tokyo.' }]),
  message('user', [{ type: 'text', text: 'Thanks!' }]),
];

describe('toModelMessages', () => {
  it('converts a tool round trip to v7 messages', () => {
    expect(toModelMessages(conversation)).toEqual<ModelMessage[]>([
      { role: 'user', content: [{ type: 'text', text: 'What time is it in Tokyo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'current_time', input: { timezone: 'Asia/Tokyo' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'current_time',
            output: { type: 'json', value: { iso: '2025-01-01T00:00:00.000Z', timezone: 'Asia/Tokyo' } },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'It is 9 am in Tokyo.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
    ]);
  });

  it('maps outputs by kind: text, json, error-text, error-json', () => {
    const calls = ['a', 'b', 'c', 'd'].map((id) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 't', input: {} }));
    const messages = toModelMessages([
      message('assistant', calls),
      message('tool', [
        { type: 'tool-result', toolCallId: 'a', toolName: 't', output: 'plain' },
        { type: 'tool-result', toolCallId: 'b', toolName: 't', output: [1, 2] },
        { type: 'tool-result', toolCallId: 'c', toolName: 't', output: 'No such file', isError: true },
        { type: 'tool-result', toolCallId: 'd', toolName: 't', output: { error: 'x' }, isError: true },
      ]),
    ]);
    expect(messages[1]!.content).toEqual([
      { type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: 'plain' } },
      { type: 'tool-result', toolCallId: 'b', toolName: 't', output: { type: 'json', value: [1, 2] } },
      { type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'error-text', value: 'No such file' } },
      { type: 'tool-result', toolCallId: 'd', toolName: 't', output: { type: 'error-json', value: { error: 'x' } } },
    ]);
  });

  it('keeps the partial text of an aborted reply, and skips a reply still streaming or left empty', () => {
    const messages = toModelMessages([
      message('user', [{ type: 'text', text: 'Tell me a story' }]),
      message('assistant', [{ type: 'text', text: 'Once upon a' }], 'aborted'),
      message('user', [{ type: 'text', text: 'Shorter please' }]),
      message('assistant', [{ type: 'text', text: '  ' }], 'aborted'),
      message('assistant', [{ type: 'text', text: 'A tale in progr' }], 'streaming'),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Tell me a story' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Once upon a' }] },
      { role: 'user', content: [{ type: 'text', text: 'Shorter please' }] },
    ]);
  });

  it('answers a tool call that never got a result, and drops a result without its call', () => {
    const messages = toModelMessages([
      message('user', [{ type: 'text', text: 'go' }]),
      message('assistant', [{ type: 'tool-call', toolCallId: 'lost', toolName: 'slow_tool', input: {} }], 'aborted'),
      message('tool', [{ type: 'tool-result', toolCallId: 'stray', toolName: 'x', output: 1 }]),
      message('user', [{ type: 'text', text: 'again' }]),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'lost', toolName: 'slow_tool', input: {} }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'lost', toolName: 'slow_tool', output: { type: 'error-text', value: MISSING_TOOL_RESULT } },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ]);
  });

  it('sends a file as a note unless its bytes are supplied', () => {
    const history = [
      message('user', [
        { type: 'text', text: 'See attached' },
        { type: 'file', url: 'media/1b2c-report.pdf', mediaType: 'application/pdf', filename: 'report.pdf' },
        { type: 'file', url: 'media/9f8e-chart.png', mediaType: 'image/png' },
      ]),
    ];
    expect(fileUrls(history)).toEqual(['media/1b2c-report.pdf', 'media/9f8e-chart.png']);
    expect(toModelMessages(history)[0]!.content).toEqual([
      { type: 'text', text: 'See attached' },
      { type: 'text', text: '[file: report.pdf]' },
      { type: 'text', text: '[file: 9f8e-chart.png]' },
    ]);
    const png = new Uint8Array([137, 80, 78, 71]);
    const resolved = toModelMessages(history, {
      resolveFile: (url) => (url.endsWith('.png') ? { data: png, mediaType: 'image/png' } : undefined),
    });
    expect(resolved[0]!.content).toEqual([
      { type: 'text', text: 'See attached' },
      { type: 'text', text: '[file: report.pdf]' },
      { type: 'file', data: { type: 'data', data: png }, mediaType: 'image/png' },
    ]);
  });

  it('gives a text file as text after its note (text/*, application/json)', () => {
    const history = [
      message('user', [
        { type: 'file', url: 'media/1-notes.md', mediaType: 'text/markdown', filename: 'notes.md' },
        { type: 'file', url: 'media/2-data.json', mediaType: 'application/json' },
      ]),
    ];
    const files: Record<string, { data: Uint8Array; mediaType: string }> = {
      'media/1-notes.md': { data: new TextEncoder().encode('# Title'), mediaType: 'text/markdown' },
      'media/2-data.json': { data: new TextEncoder().encode('{"a":1}'), mediaType: 'application/json' },
    };
    expect(toModelMessages(history, { resolveFile: (url) => files[url] })[0]!.content).toEqual([
      { type: 'text', text: '[file: notes.md]\n# Title' },
      { type: 'text', text: '[file: 2-data.json]\n{"a":1}' },
    ]);
  });
});

describe('what the provider receives', () => {
  let fake: FakeModel;
  beforeAll(async () => {
    fake = await startFakeModel();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  async function send(messages: ModelMessage[]) {
    const model = createOpenAICompatible({ name: 'openai-compatible', baseURL: fake.baseUrl, includeUsage: true }).chatModel('fake-model');
    const errors: unknown[] = [];
    let text = '';
    const stream = streamModelCall({
      model,
      instructions: 'You are helpful.',
      messages,
      tools: {},
      abortSignal: new AbortController().signal,
    });
    for await (const part of stream) {
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'error') errors.push(part.error);
    }
    expect(text).toBe('ok');
    expect(errors).toEqual([]);
    return fake.requests.at(-1)!.body.messages;
  }

  it('a tool round trip: system, user, assistant with tool_calls, tool', async () => {
    const sent = await send(toModelMessages(conversation));
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent[0]).toMatchObject({ role: 'system', content: 'You are helpful.' });
    expect(sent[2]).toMatchObject({
      role: 'assistant',
      content: 'Let me check.',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'current_time', arguments: '{"timezone":"Asia/Tokyo"}' } }],
    });
    expect(sent[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(JSON.parse(sent[3]!.content as string)).toEqual({ iso: '2025-01-01T00:00:00.000Z', timezone: 'Asia/Tokyo' });
  });

  it('an image supplied as bytes', async () => {
    const png = new Uint8Array([137, 80, 78, 71]);
    const history = [message('user', [{ type: 'file', url: 'media/x-chart.png', mediaType: 'image/png' }])];
    const sent = await send(toModelMessages(history, { resolveFile: () => ({ data: png, mediaType: 'image/png' }) }));
    expect(sent[1]!.content).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from(png).toString('base64')}` } },
    ]);
  });
});
