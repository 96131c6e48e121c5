// A step's output limits alone: bytes counted as UTF-8 exactly, tokens as streamed pieces, the step
// stopped at the first part past either limit with a message naming the setting.
import { describe, expect, it } from 'vitest';
import { OutputMeter, utf8Bytes } from '../../../core/output-limit.ts';

describe('OutputMeter', () => {
  it('stops at the first piece past the byte limit, naming MODEL_STEP_MAX_OUTPUT_BYTES', () => {
    const meter = new OutputMeter({ maxTokens: 100, maxBytes: 10 });
    expect(meter.count({ type: 'text-delta', text: 'hello' })).toBeUndefined();
    expect(meter.count({ type: 'reasoning-delta', text: 'world' })).toBeUndefined();
    expect(meter.count({ type: 'tool-input-delta', delta: '!' })).toMatch(/past 10 bytes .*MODEL_STEP_MAX_OUTPUT_BYTES/);
  });

  it('counts a streamed piece as a token, and files by their size', () => {
    const meter = new OutputMeter({ maxTokens: 2, maxBytes: 1_000 });
    expect(meter.count({ type: 'text-delta', text: 'a' })).toBeUndefined();
    expect(meter.count({ type: 'file', file: { uint8Array: new Uint8Array(10) } })).toBeUndefined();
    expect(meter.count({ type: 'text-delta', text: 'b' })).toMatch(/past 2 output tokens .*MODEL_STEP_MAX_OUTPUT_TOKENS/);
  });

  it('counts nothing for empty pieces and parts without output', () => {
    const meter = new OutputMeter({ maxTokens: 1, maxBytes: 1 });
    expect(meter.count({ type: 'text-delta', text: '' })).toBeUndefined();
    expect(meter.count({ type: 'tool-call' })).toBeUndefined();
    expect(meter.count({ type: 'model-call-end' })).toBeUndefined();
    expect(meter.writtenTokens()).toBe(0);
  });

  it('estimates written tokens as four bytes a token, never fewer than the pieces', () => {
    const meter = new OutputMeter({ maxTokens: 100, maxBytes: 1_000 });
    meter.count({ type: 'text-delta', text: 'x'.repeat(40) });
    expect(meter.writtenTokens()).toBe(10);
    meter.count({ type: 'text-delta', text: 'y' });
    meter.count({ type: 'text-delta', text: 'z' });
    expect(meter.writtenTokens()).toBe(11);
  });
});

describe('utf8Bytes', () => {
  it('counts as UTF-8 encodes: ASCII, accents, CJK, emoji, and lone surrogates as U+FFFD', () => {
    for (const text of ['', 'plain', 'déjà vu', '日本語', '👍🏽 ok', 'a\uD800b', '\uDC00', 'end\uD83D']) {
      expect(utf8Bytes(text), JSON.stringify(text)).toBe(Buffer.byteLength(text));
    }
  });
});
