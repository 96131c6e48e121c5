// client.device: a program without a key (the CLI's login) asks for codes, a logged-in user approves
// them, and waitForKey polls until the key comes, never sooner than the interval in force: first
// against a scripted server (slow_down, terminal answers), then against the real service.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { BadRequestError, Client } from '../../sdk/src/index.ts';
import { DeviceTokenError } from '../../sdk/src/resources/device.ts';

const test = apiTest();

const KEY = { id: 'key_1', key: 'sk_new', name: 'laptop', scopes: ['read'], createdAt: '2026-01-01T00:00:00.000Z' };

/** What the scripted server answers to each poll, in order; `interval` is what it holds the device to. */
type Poll = { error: string; interval?: number } | 'key';

const script: Poll[] = [];
/** Per poll: whether it came sooner than the interval in force since the one before. */
const polls: Array<{ early: boolean }> = [];
let interval = 1;
let lastPollAt = 0;
let baseUrl = '';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const now = performance.now();
    // A timer may fire a millisecond or so before its time; anything sooner is a device not waiting.
    polls.push({ early: lastPollAt > 0 && now - lastPollAt < interval * 1000 - 20 });
    lastPollAt = now;
    const answer = script.shift() ?? { error: 'expired_token' };
    if (answer === 'key') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(KEY));
      return;
    }
    if (answer.interval) interval = answer.interval;
    res
      .writeHead(400, { 'content-type': 'application/problem+json' })
      .end(JSON.stringify({ type: 'https://agent-service.dev/problems/device-grant', title: 't', status: 400, traceId: 't-1', ...answer }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function scripted(...answers: Poll[]): Client {
  script.splice(0, script.length, ...answers);
  polls.splice(0, polls.length);
  interval = 1;
  lastPollAt = performance.now();
  return new Client({ baseUrl });
}

describe('waitForKey against a scripted server', () => {
  test('waits out authorization_pending, slows down when told, and returns the key', async () => {
    const client = scripted(
      { error: 'authorization_pending' },
      { error: 'slow_down', interval: 2 },
      { error: 'authorization_pending' },
      'key',
    );
    expect(await client.device.waitForKey({ deviceCode: 'dc_1', interval: 1 })).toEqual(KEY);
    expect(polls).toHaveLength(4);
    expect(polls.filter((poll) => poll.early)).toEqual([]);
  });

  test.each(['access_denied', 'expired_token', 'invalid_grant'])('%s ends the wait with a DeviceTokenError', async (error) => {
    const client = scripted({ error: 'authorization_pending' }, { error });
    const thrown = await client.device.waitForKey({ deviceCode: 'dc_1', interval: 1 }).catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(DeviceTokenError);
    expect(thrown).toBeInstanceOf(BadRequestError);
    expect(thrown).toMatchObject({ error, status: 400, traceId: 't-1' });
    expect(polls).toHaveLength(2);
  });

  test('an aborted signal stops the wait without another poll', async () => {
    const client = scripted({ error: 'authorization_pending' });
    const controller = new AbortController();
    const waiting = client.device.waitForKey({ deviceCode: 'dc_1', interval: 1 }, { signal: controller.signal });
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(polls).toHaveLength(0);
  });
});

describe('against the service', () => {
  test('requestCode, get and approve by a logged-in user, waitForKey returns a working key of theirs', async ({ api, user }) => {
    const device = new Client({ baseUrl: api.url });
    const approver = new Client({ baseUrl: api.url, apiKey: user.apiKey });
    const code = await device.device.requestCode({ clientName: 'sdk-laptop', scopes: ['read'] });
    expect(code.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    await expect(device.device.pollToken(code.deviceCode)).rejects.toMatchObject({ error: 'authorization_pending' });

    expect(await approver.device.get(code.userCode)).toMatchObject({ clientName: 'sdk-laptop', scopes: ['read'], status: 'pending' });
    const waiting = device.device.waitForKey(code);
    expect(await approver.device.approve(code.userCode.toLowerCase())).toMatchObject({ status: 'approved' });
    const key = await waiting;
    expect(key).toMatchObject({ name: 'sdk-laptop', scopes: ['read'] });

    const loggedIn = new Client({ baseUrl: api.url, apiKey: key.key });
    expect((await loggedIn.keys.list()).keys.map((listed) => listed.id)).toContain(key.id);
    await expect(device.device.pollToken(code.deviceCode)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('deny: the device hears access_denied', async ({ api, user }) => {
    const device = new Client({ baseUrl: api.url });
    const approver = new Client({ baseUrl: api.url, apiKey: user.apiKey });
    const code = await device.device.requestCode({ clientName: 'sdk-denied' });
    expect(await approver.device.deny(code.userCode)).toMatchObject({ status: 'denied' });
    const thrown = await device.device.pollToken(code.deviceCode).catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(DeviceTokenError);
    expect(thrown).toMatchObject({ error: 'access_denied' });
  });
});
