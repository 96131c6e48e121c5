// The payload codec and converter as a Temporal client or worker uses them: a value goes through the
// converter, then the codec, and comes back through both. What is written is ciphertext, except the
// summaries and details marked readable (lib/workflow-safe/readable-metadata.ts); the same words unmarked are
// encrypted like any payload. A rotated key still reads what it wrote; a key not held is named.
import { describe, expect, it } from 'vitest';
import type { Payload } from '@temporalio/common';
import { encryptionCodec, PayloadKeyMissingError } from '../../lib/payload-codec.ts';
import { payloadConverter } from '../../lib/payload-converter.ts';
import { parseMasterKey } from '../../lib/master-key.ts';
import { READABLE_METADATA_KEY, readableMetadata } from '../../lib/workflow-safe/readable-metadata.ts';

const CURRENT = parseMasterKey('current-master-key-0123456789abcdefghijklmnop');
const OLDER = parseMasterKey('older-master-key-0123456789abcdefghijklmnopqr');

const encodingOf = (payload: Payload) => new TextDecoder().decode(payload.metadata!.encoding!);
const textOf = (payload: Payload) => Buffer.from(payload.data ?? []).toString('utf8');

describe('the payload codec with the payload converter', () => {
  it('writes a message as ciphertext that holds none of its words, and reads it back', async () => {
    const codec = encryptionCodec([CURRENT]);
    const message = { parts: [{ type: 'text', text: 'the launch code is swordfish' }] };
    const [written] = await codec.encode([payloadConverter.toPayload(message)]);
    expect(encodingOf(written!)).toBe('binary/encrypted');
    expect(textOf(written!)).not.toContain('swordfish');
    const [read] = await codec.decode([written!]);
    expect(payloadConverter.fromPayload(read!)).toEqual(message);
  });

  it('leaves undefined (binary/null, no data) as it is, and encrypts a null-encoded payload that carries anything', async () => {
    const codec = encryptionCodec([CURRENT]);
    const [nothing] = await codec.encode([payloadConverter.toPayload(undefined)]);
    expect(encodingOf(nothing!)).toBe('binary/null');
    expect(nothing!.data?.length ?? 0).toBe(0);
    const [decoded] = await codec.decode([nothing!]);
    expect(payloadConverter.fromPayload(decoded!)).toBeUndefined();
    const smuggled: Payload = { metadata: { encoding: new TextEncoder().encode('binary/null') }, data: new TextEncoder().encode('secret') };
    const tagged: Payload = { metadata: { encoding: new TextEncoder().encode('binary/null'), note: new TextEncoder().encode('secret') } };
    const written = await codec.encode([smuggled, tagged, payloadConverter.toPayload(null)]);
    expect(written.map(encodingOf)).toEqual(['binary/encrypted', 'binary/encrypted', 'binary/encrypted']);
    const [back, backTagged] = await codec.decode(written);
    expect([encodingOf(back!), textOf(back!)]).toEqual(['binary/null', 'secret']);
    expect(new TextDecoder().decode(backTagged!.metadata!.note!)).toBe('secret');
  });

  it('leaves a summary and details marked readable as JSON text, and encrypts the same words unmarked', async () => {
    const codec = encryptionCodec([CURRENT]);
    const { staticSummary, staticDetails } = readableMetadata({
      summary: 'Session ses_abc',
      details: 'Events: GET /session/ses_abc/events',
    });
    const [summary, details, unmarked] = await codec.encode([
      payloadConverter.toPayload(staticSummary),
      payloadConverter.toPayload(staticDetails),
      payloadConverter.toPayload('Session ses_abc'),
    ]);
    expect([encodingOf(summary!), textOf(summary!)]).toEqual(['json/plain', '"Session ses_abc"']);
    expect(textOf(details!)).toBe('"Events: GET /session/ses_abc/events"');
    expect(encodingOf(unmarked!)).toBe('binary/encrypted');
    // Read back, the marked text is a plain string again.
    const [read] = await codec.decode([summary!]);
    expect(payloadConverter.fromPayload(read!)).toBe('Session ses_abc');
  });

  it('honours the mark on JSON text only: a marked payload of another encoding is encrypted', async () => {
    const marked = (encoding: string) => ({
      metadata: { encoding: new TextEncoder().encode(encoding), [READABLE_METADATA_KEY]: new TextEncoder().encode('ids-only') },
      data: new TextEncoder().encode('secret bytes'),
    });
    const [binary, json] = await encryptionCodec([CURRENT]).encode([marked('binary/plain'), marked('json/plain')]);
    expect(encodingOf(binary!)).toBe('binary/encrypted');
    expect(encodingOf(json!)).toBe('json/plain');
  });

  it('reads with a previous key what that key wrote, and names the key it does not hold', async () => {
    const [written] = await encryptionCodec([OLDER]).encode([payloadConverter.toPayload('before the rotation')]);
    const [read] = await encryptionCodec([CURRENT, OLDER]).decode([written!]);
    expect(payloadConverter.fromPayload(read!)).toBe('before the rotation');
    const decoding = encryptionCodec([CURRENT]).decode([written!]);
    await expect(decoding).rejects.toThrow(PayloadKeyMissingError);
    await expect(decoding).rejects.toThrow(OLDER.id);
  });

  it('refuses a ciphertext altered by one byte', async () => {
    const codec = encryptionCodec([CURRENT]);
    const [written] = await codec.encode([payloadConverter.toPayload('intact')]);
    const data = Buffer.from(written!.data!);
    data[20] = data[20]! ^ 1;
    await expect(codec.decode([{ ...written!, data }])).rejects.toThrow();
  });

  it('writes plaintext with encryption off, and still reads ciphertext', async () => {
    const [ciphertext] = await encryptionCodec([CURRENT]).encode([payloadConverter.toPayload('sealed')]);
    const off = encryptionCodec([CURRENT], { encrypt: false });
    const [plain] = await off.encode([payloadConverter.toPayload('open')]);
    expect(textOf(plain!)).toBe('"open"');
    const [read] = await off.decode([ciphertext!]);
    expect(payloadConverter.fromPayload(read!)).toBe('sealed');
  });
});
