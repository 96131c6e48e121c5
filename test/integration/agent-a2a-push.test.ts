// A2A push notifications, driven by the official A2A SDK's client: a client leaves a URL of its own for a
// task (with the message, or afterwards) and is told there, as an A2A StreamResponse with the token and
// credentials it gave, when the task waits on its user, completes, fails or is cancelled: once each,
// however the config and the change cross. Configs are read, listed and deleted; a bad URL, a read key
// and another user's task are refused.
import { describe, expect, onTestFinished } from 'vitest';
import { StreamResponse, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { clientOf, request, strangerWithSameAgent } from '../helpers/client/a2a-client.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { deleteStalePushConfigs, PUSH_CONFIG_TTL_DAYS } from '../../store/a2a-push.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

const COMPLETED = 3;
const FAILED = 4;
const CANCELED = 5;
const INPUT_REQUIRED = 6;

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  onTestFinished(() => started.close());
  return started;
}

/** The notifications a path of the receiver got, read with the SDK as StreamResponses. */
function updates(at: WebhookReceiver, path: string) {
  return at.requests
    .filter((received) => received.path.endsWith(path))
    .map((received) => ({ headers: received.headers, update: StreamResponse.fromJSON(JSON.parse(received.body)) }));
}

const stateOf = (notification: { update: StreamResponse }) =>
  notification.update.payload?.$case === 'statusUpdate' ? notification.update.payload.value.status?.state : undefined;

const config = (taskId: string, url: string, more: Partial<TaskPushNotificationConfig> = {}): TaskPushNotificationConfig => ({
  tenant: '',
  id: '',
  taskId,
  url,
  token: '',
  authentication: undefined,
  ...more,
});

describe('A2A push notifications', () => {
  test('a config made while a task runs is told it waits on its user, then that it completed', async ({ env }) => {
    const at = await receiver();
    const { name } = await env.deploy();
    const client = await clientOf(env, name);
    let release!: () => void;
    const configured = new Promise<void>((resolve) => (release = resolve));
    env.fake.enqueue(
      {
        toolCalls: [{ id: 'ask', name: 'ask_my_user', arguments: { question: 'Red or blue?', options: ['red', 'blue'] } }],
        holdUntil: configured,
      },
      { text: 'Blue it is.' },
    );
    const task = (await client.sendMessage(request('Pick a colour', {}, true))) as Task;
    const made = await client.createTaskPushNotificationConfig(config(task.id, `${at.url}/colour`, { token: 'tok-1' }));
    expect(made).toMatchObject({ taskId: task.id, url: `${at.url}/colour`, token: 'tok-1', id: expect.stringMatching(/^pnc_/) });
    release();

    await at.waitForRequests(1);
    const [asked] = updates(at, '/colour');
    expect(stateOf(asked!)).toBe(INPUT_REQUIRED);
    expect(asked!.headers).toMatchObject({ 'content-type': 'application/a2a+json', 'x-a2a-notification-token': 'tok-1' });
    const status = asked!.update.payload?.$case === 'statusUpdate' ? asked!.update.payload.value : undefined;
    expect(status).toMatchObject({ taskId: task.id, contextId: task.contextId });
    expect(status!.status!.message!.parts[0]!.content).toEqual({ $case: 'text', value: 'Red or blue?' });

    const requested = (await env.events(task.contextId)).find((event) => event.type === 'approval.requested') as Extract<
      SessionEvent,
      { type: 'approval.requested' }
    >;
    const answered = await call(`${env.api.url}/approval/${requested.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: 'blue' },
    });
    expect(answered.status, answered.text).toBe(200);
    await at.waitForRequests(2);
    expect(updates(at, '/colour').map(stateOf)).toEqual([INPUT_REQUIRED, COMPLETED]);
  });

  test("a task that waits on its client's tool is told so, naming the tool, then that it completed", async ({ env }) => {
    const at = await receiver();
    const lookup = {
      id: 'lookup_order',
      description: 'Look up an order',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    };
    const { name } = await env.deploy({ customTools: [lookup] });
    const client = await clientOf(env, name);
    let release!: () => void;
    const configured = new Promise<void>((resolve) => (release = resolve));
    env.fake.enqueue(
      { toolCalls: [{ id: 'call_l', name: 'lookup_order', arguments: { orderId: 'A-1' } }], holdUntil: configured },
      { text: 'It has shipped.' },
    );
    const task = (await client.sendMessage(request('Where is A-1?', {}, true))) as Task;
    await client.createTaskPushNotificationConfig(config(task.id, `${at.url}/tool`));
    release();
    await at.waitForRequests(1);
    const [waiting] = updates(at, '/tool');
    expect(stateOf(waiting!)).toBe(INPUT_REQUIRED);
    expect(JSON.stringify(waiting!.update.payload)).toContain('lookup_order');
    const answered = await call(`${env.api.url}/session/${task.contextId}/tool-result`, {
      headers: env.user.auth,
      json: { toolCallId: 'call_l', output: { status: 'shipped' } },
    });
    expect(answered.status, answered.text).toBe(200);
    await at.waitForRequests(2);
    expect(updates(at, '/tool').map(stateOf)).toEqual([INPUT_REQUIRED, COMPLETED]);
  });

  test('a config sent with the message, one made after the end, and a cancellation: each told once, with its credentials', async ({
    env,
  }) => {
    const at = await receiver();
    const { name } = await env.deploy();
    const client = await clientOf(env, name);

    // With the message: the turn may end before the config is kept, or after; the end is told once either way.
    env.fake.enqueue({ text: 'Done.' });
    const sent = request('Hi');
    sent.configuration!.taskPushNotificationConfig = config('', `${at.url}/sent`, {
      token: 'tok-2',
      authentication: { scheme: 'Bearer', credentials: 'cred-2' },
    });
    const done = (await client.sendMessage(sent)) as Task;
    expect(done.status!.state).toBe(COMPLETED);
    await at.waitForRequests(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const told = updates(at, '/sent');
    expect(told.map(stateOf)).toEqual([COMPLETED]);
    expect(told[0]!.headers).toMatchObject({ authorization: 'Bearer cred-2', 'x-a2a-notification-token': 'tok-2' });

    // Made after the task ended: told its end at once.
    await client.createTaskPushNotificationConfig(config(done.id, `${at.url}/late`, { id: 'late' }));
    await at.waitForRequests(2);
    expect(updates(at, '/late').map(stateOf)).toEqual([COMPLETED]);

    // Read, listed and deleted.
    const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: done.id, pageSize: 0, pageToken: '' });
    expect(listed.configs.map((each) => each.url).sort()).toEqual([`${at.url}/late`, `${at.url}/sent`]);
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: 'late' })).toMatchObject({
      url: `${at.url}/late`,
    });
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: 'late' });
    await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: 'late' })).rejects.toThrow(
      /no push notification config/,
    );

    // A failed task is told so, and why.
    env.fake.enqueue({ status: 400, errorBody: { error: { message: 'The model refused this request.' } } });
    const failing = request('Fail');
    failing.configuration!.taskPushNotificationConfig = config('', `${at.url}/failed`);
    expect(((await client.sendMessage(failing)) as Task).status!.state).toBe(FAILED);
    await at.waitForRequests(3);
    const [failed] = updates(at, '/failed');
    expect(stateOf(failed!)).toBe(FAILED);
    expect(JSON.stringify(failed!.update.payload)).toContain('The model refused this request.');

    // A cancelled task is told so.
    env.fake.enqueue({ text: 'never ending ', endless: true, chunkDelayMs: 20 });
    const running = (await client.sendMessage(request('Go on forever', {}, true))) as Task;
    await client.createTaskPushNotificationConfig(config(running.id, `${at.url}/cancel`));
    await env.waitForEvents(running.contextId, (events) => events.some((event) => event.type === 'turn.started'));
    expect((await client.cancelTask({ tenant: '', id: running.id, metadata: undefined })).status!.state).toBe(CANCELED);
    await at.waitForRequests(4);
    expect(updates(at, '/cancel').map(stateOf)).toEqual([CANCELED]);
  });

  test('refused: a URL that is no http(s) receiver, a read key, and a task of another user', async ({ env }) => {
    const { name } = await env.deploy();
    const client = await clientOf(env, name);
    env.fake.enqueue({ text: 'Mine.' });
    const task = (await client.sendMessage(request('Hi'))) as Task;
    await expect(client.createTaskPushNotificationConfig(config(task.id, 'ftp://example.com/x'))).rejects.toThrow(/URL is refused/);
    await expect(
      client.createTaskPushNotificationConfig(
        config(task.id, 'https://example.com/x', { authentication: { scheme: 'Bearer', credentials: 'a\r\nb' } }),
      ),
    ).rejects.toThrow(/authentication/);

    // A message whose config is refused is refused whole: no turn is taken.
    const tasks = async () =>
      (await client.listTasks({ tenant: '', contextId: '', status: 0, pageToken: '', statusTimestampAfter: undefined })).totalSize;
    const before = await tasks();
    const badly = request('Hi again');
    badly.configuration!.taskPushNotificationConfig = config('', 'https://example.com/x', { token: 'line\nbreak' });
    await expect(client.sendMessage(badly)).rejects.toThrow(/token must be printable ASCII/);
    expect(await tasks()).toBe(before);

    // A read key neither makes configs nor reads their secrets.
    const reader = await call<{ key: string }>(`${env.api.url}/key`, {
      headers: env.user.auth,
      json: { name: 'reader', scopes: ['read'] },
    });
    const readOnly = await clientOf(env, name, reader.body.key);
    await expect(readOnly.createTaskPushNotificationConfig(config(task.id, 'https://example.com/x'))).rejects.toThrow(/sessions:write/);
    await expect(readOnly.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).rejects.toThrow(
      /sessions:write/,
    );

    // Another user with an agent of the same name (names are per user, so the URL is the same): my task is not theirs.
    const stranger = await strangerWithSameAgent(env, name);
    await expect(stranger.createTaskPushNotificationConfig(config(task.id, 'https://example.com/x'))).rejects.toThrow(/No task/);
    await expect(stranger.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).rejects.toThrow(
      /No task/,
    );
  });

  test('a config goes a week after its task ended, once nothing is left to send; one of a task still open stays', async ({ env }) => {
    const at = await receiver();
    const { name } = await env.deploy();
    const client = await clientOf(env, name);
    env.fake.enqueue({ text: 'Done.' }, { text: 'never ending ', endless: true, chunkDelayMs: 20 });
    const ended = (await client.sendMessage(request('Hi'))) as Task;
    const open = (await client.sendMessage(request('Go on', {}, true))) as Task;
    await client.createTaskPushNotificationConfig(config(ended.id, `${at.url}/ended`, { id: 'ended' }));
    await client.createTaskPushNotificationConfig(config(open.id, `${at.url}/open`, { id: 'open' }));
    await at.waitForRequests(1);
    await expect
      .poll(async () => (await env.api.db.query(`SELECT status FROM webhook_deliveries WHERE push_config_id = 'ended'`)).rows[0]?.status)
      .toBe('delivered');
    // As if a week and a day had passed.
    const aged = `now() - make_interval(days => ${PUSH_CONFIG_TTL_DAYS + 1})`;
    await env.api.db.query(`UPDATE a2a_push_configs SET created_at = ${aged} WHERE task_id = ANY($1)`, [[ended.id, open.id]]);
    await env.api.db.query(`UPDATE events SET at = ${aged} WHERE session_id = ANY($1)`, [[ended.contextId, open.contextId]]);
    expect(await deleteStalePushConfigs(env.api.db)).toBe(1);
    const left = await env.api.db.query<{ id: string }>('SELECT id FROM a2a_push_configs WHERE task_id = ANY($1)', [[ended.id, open.id]]);
    expect(left.rows.map((row) => row.id)).toEqual(['open']);
    await client.cancelTask({ tenant: '', id: open.id, metadata: undefined });
  });
});
