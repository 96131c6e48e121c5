// Workflow payloads are ciphertext in Temporal: a canary sentence sent as a message and echoed in the
// reply appears nowhere in the history of its session workflow (where its turn runs), read as anyone with
// access to the cluster reads them (no codec). With encryption off it does (what the codec hides).
// The codec endpoint decodes a payload for an admin key, refuses other keys, and names a payload it
// cannot decode. Workflow summaries and details stay readable without the codec, and hold ids only.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { approvalWorkflowId, sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { READABLE_METADATA_KEY } from '../../lib/workflow-safe/readable-metadata.ts';

let raw: Client;
let connection: Connection;
beforeAll(async () => {
  // A client without the service's codec: what an operator of the cluster, or its database, sees.
  connection = await Connection.connect({ address: inject('temporalAddress') });
  raw = new Client({ connection, namespace: 'default' });
});
afterAll(async () => connection?.close());

/** Every payload of a history: its data and metadata, as text. */
function payloadsOf(
  history: History,
): Array<{ encoding: string; data: string; base64: { metadata: Record<string, string>; data: string } }> {
  const found: Array<{ encoding: string; data: string; base64: { metadata: Record<string, string>; data: string } }> = [];
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(visit);
    const record = value as Record<string, unknown>;
    if (record.data instanceof Uint8Array && record.metadata && typeof record.metadata === 'object') {
      const metadata = record.metadata as Record<string, Uint8Array>;
      found.push({
        encoding: Buffer.from(metadata.encoding ?? []).toString('utf8'),
        data: Buffer.from(record.data).toString('utf8'),
        base64: {
          metadata: Object.fromEntries(Object.entries(metadata).map(([key, bytes]) => [key, Buffer.from(bytes).toString('base64')])),
          data: Buffer.from(record.data).toString('base64'),
        },
      });
      return;
    }
    Object.values(record).forEach(visit);
  };
  visit(history);
  return found;
}

async function chatAndRead(env: AgentEnv, canary: string) {
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: `You said: ${canary}` });
  const sent = await call<{ messageId: string; reply: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: canary }] },
  });
  expect(sent.body.reply).toBe(`You said: ${canary}`);
  // The turn ran in its session workflow: its model step's input and result are here.
  return { messageId: sent.body.messageId, session: await raw.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory() };
}

describe('with encryption on (the default)', () => {
  let env: AgentEnv;
  let admin: TestUser;
  beforeAll(async () => {
    env = await startAgentEnv();
    admin = await createTestUser(env.api.db, { admin: true });
  });
  afterAll(async () => env?.close());

  test('a canary message and its reply appear nowhere in the histories; the codec endpoint shows them to an admin only', async () => {
    const canary = `canary ${randomUUID()} sings`;
    const { messageId, session } = await chatAndRead(env, canary);
    for (const history of [session]) {
      const text = JSON.stringify(history, (_key, value: unknown) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value,
      );
      expect(text).not.toContain(canary);
      const payloads = payloadsOf(history);
      // In plaintext only: search attributes (ids, for the Web UI's search), the summaries written
      // readable (ids), the SDK's own bookkeeping of local activities (their type and times; their
      // results are encrypted) and of patches (their names, also in the TemporalChangeVersion search
      // attribute), and undefined (binary/null, no data: nothing to hide).
      const plaintext = payloads.filter(
        (payload) => payload.encoding !== 'binary/encrypted' && !(payload.encoding === 'binary/null' && payload.data === ''),
      );
      const patchName = /^[a-z0-9-]+$/;
      for (const payload of plaintext) {
        const searchAttribute = 'type' in payload.base64.metadata && /^"(usr|agt|ses)_\w+"|^"(session|turn)"$/.test(payload.data);
        const summary = READABLE_METADATA_KEY in payload.base64.metadata;
        const marker = JSON.parse(payload.data) as { activity_type?: string; id?: string } | string[];
        const localActivityMarker = !Array.isArray(marker) && typeof marker.activity_type === 'string';
        const patchMarker = !Array.isArray(marker) && typeof marker.id === 'string' && patchName.test(marker.id);
        const changeVersion = Array.isArray(marker) && marker.every((name) => patchName.test(name));
        expect(searchAttribute || summary || localActivityMarker || patchMarker || changeVersion, payload.data).toBe(true);
      }
      // At least the workflow's input, and its first activity's input and result.
      expect(payloads.filter((payload) => payload.encoding === 'binary/encrypted').length).toBeGreaterThanOrEqual(3);
    }

    // Decoded for an admin, the payloads are the workflow's own: the message's id (the wake-up signal, the
    // inbox's read; the send itself was taken in PostgreSQL), the model step's input and result.
    const encrypted = payloadsOf(session)
      .filter((payload) => payload.encoding === 'binary/encrypted')
      .map((payload) => payload.base64);
    const decoded = await call<{ payloads: Array<{ metadata: Record<string, string>; data: string }> }>(`${env.api.url}/codec/decode`, {
      headers: admin.auth,
      json: { payloads: encrypted },
    });
    expect(decoded.status).toBe(200);
    expect(decoded.body.payloads).toHaveLength(encrypted.length);
    const plain = decoded.body.payloads.map((payload) => Buffer.from(payload.data, 'base64').toString('utf8'));
    expect(plain.some((data) => data.includes(messageId))).toBe(true);
    expect(Buffer.from(decoded.body.payloads[0]!.metadata.encoding!, 'base64').toString('utf8')).toBe('json/plain');

    // Encode, then decode: the round trip of a payload the Web UI sends (a signal's input).
    const original = {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: Buffer.from('"hello"').toString('base64'),
    };
    const encoded = await call<{ payloads: Array<{ metadata: Record<string, string>; data: string }> }>(`${env.api.url}/codec/encode`, {
      headers: admin.auth,
      json: { payloads: [original] },
    });
    expect(Buffer.from(encoded.body.payloads[0]!.metadata.encoding!, 'base64').toString('utf8')).toBe('binary/encrypted');
    const back = await call<{ payloads: unknown[] }>(`${env.api.url}/codec/decode`, { headers: admin.auth, json: encoded.body });
    expect(back.body.payloads).toEqual([original]);

    // Not for other keys, nor for no key.
    expect((await call(`${env.api.url}/codec/decode`, { headers: env.user.auth, json: { payloads: encrypted } })).status).toBe(403);
    expect((await call(`${env.api.url}/codec/decode`, { json: { payloads: encrypted } })).status).toBe(401);

    // An altered payload is named, not decoded.
    const altered = { ...encrypted[0]!, data: Buffer.from('x'.repeat(40)).toString('base64') };
    const refused = await call<{ errors: Array<{ path: string }> }>(`${env.api.url}/codec/decode`, {
      headers: admin.auth,
      json: { payloads: [encrypted[1], altered] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: '/payloads/1' })]);
  });

  test('summaries and details read without the codec, as the Web UI lists runs; an approval is named by its id, not its question', async () => {
    const canary = `canary ${randomUUID()} asks`;
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'Heard.' });
    const sent = await call<{ messageId: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: canary }] },
    });
    expect(sent.status).toBe(200);
    const session = await raw.workflow.getHandle(sessionWorkflowId(sessionId)).describe();
    expect(await session.staticSummary()).toBe(`Session ${sessionId}`);

    const { name } = await env.deploy();
    const asked = await call<{ id: string }>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: canary, options: ['yes', 'no'], agent: name },
    });
    expect(asked.status, asked.text).toBe(201);
    const approval = await raw.workflow.getHandle(approvalWorkflowId(asked.body.id)).describe();
    expect(await approval.staticSummary()).toBe(`Approval ${asked.body.id}: a question to the user`);
    expect(await approval.staticDetails()).toBe(`Created with POST /approval. Answer: POST /approval/${asked.body.id}/answer`);
    const history = await raw.workflow.getHandle(approvalWorkflowId(asked.body.id)).fetchHistory();
    expect(payloadsOf(history).some((payload) => payload.data.includes(canary))).toBe(false);
  });

  test("a failure's message is ciphertext too: a provider error quoting the canary is in no history, and the user still reads it", async () => {
    const canary = `canary ${randomUUID()} fails`;
    const sessionId = await env.newSession();
    env.fake.enqueue({ status: 400, errorBody: { error: { message: `Cannot answer "${canary}"`, type: 'invalid_request_error' } } });
    const sent = await call<{ messageId: string; status: string; error: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'hello' }] },
    });
    expect(sent.body.status).toBe('failed');
    const events = await env.events(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'turn.failed', error: expect.stringContaining(canary) });

    // The turn ran in its session workflow.
    const session = await raw.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory();
    const failed = session.events!.find((event) => event.activityTaskFailedEventAttributes);
    expect(failed, 'the model step failed in the history').toBeDefined();
    expect(failed!.activityTaskFailedEventAttributes!.failure!.message).toBe('Encoded failure');
    for (const history of [session]) {
      const text = JSON.stringify(history, (_key, value: unknown) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value,
      );
      expect(text).not.toContain(canary);
    }
  });
});

describe('with TEMPORAL_PAYLOAD_ENCRYPTION=off', () => {
  let env: AgentEnv;
  beforeAll(async () => {
    env = await startAgentEnv({ TEMPORAL_PAYLOAD_ENCRYPTION: 'off' });
  });
  afterAll(async () => env?.close());

  test("the workflow's payloads are in plain sight in the session history: what encryption hides", async () => {
    const canary = `canary ${randomUUID()} sings`;
    const { messageId, session } = await chatAndRead(env, canary);
    // The wake-up signal's input, as JSON anyone reading the history sees.
    expect(payloadsOf(session).some((payload) => payload.encoding === 'json/plain' && payload.data.includes(messageId))).toBe(true);
  });
});
