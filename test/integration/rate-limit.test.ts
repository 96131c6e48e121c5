// Rate limits are kept in PostgreSQL, so every API process counts against the same budget.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/harness/api.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';

let first: TestApi;
let second: TestApi;
beforeAll(async () => {
  // Behind one trusted proxy hop, so this test speaks from an address of its own.
  const limits = { RATE_LIMIT_POINTS: '6', RATE_LIMIT_WINDOW_SECONDS: '30', AUTH_FAILURE_LIMIT_POINTS: '3', TRUST_PROXY_HOPS: '1' };
  first = await startTestApi(limits);
  second = await startTestApi(limits);
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

test('two API processes and two keys of one user share one budget; the 7th request gets 429 with Retry-After', async () => {
  const user = await createTestUser(first.db);
  // An address of its own: other test files' failed logins from 127.0.0.1 count in the same table.
  const headers = { ...user.auth, 'x-forwarded-for': '198.51.100.252' };
  // A second key of the same user (its making is the first request): minting keys buys no more requests.
  const minted = await call<{ key: string }>(`${first.url}/key`, { headers, json: { name: 'second' } });
  expect(minted.status).toBe(201);
  const secondKey = { authorization: `Bearer ${minted.body.key}`, 'x-forwarded-for': '198.51.100.252' };
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++)
    statuses.push((await call(`${(i % 2 ? first : second).url}/key`, { headers: i % 2 ? headers : secondKey })).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200]);
  const limited = await call(`${first.url}/key`, { headers: secondKey });
  expect(limited.status).toBe(429);
  expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const retryAfter = limited.headers.get('retry-after')!;
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(30);

  // Another key of another user is not affected.
  const other = await createTestUser(first.db);
  expect((await call(`${second.url}/key`, { headers: { ...other.auth, 'x-forwarded-for': '198.51.100.252' } })).status).toBe(200);
});

test('repeated failed authentication from one address is limited, across processes', async () => {
  const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const target = i % 2 ? first : second;
    statuses.push(
      (await call(`${target.url}/key`, { headers: { authorization: `Bearer sk_guess${i}`, 'x-forwarded-for': address } })).status,
    );
  }
  expect(statuses).toEqual([401, 401, 401, 429]);
  // Past the limit the address is refused before any key is looked up: a right guess learns nothing either.
  const user = await createTestUser(first.db);
  const guessed = await call(`${first.url}/key`, { headers: { ...user.auth, 'x-forwarded-for': address } });
  expect(guessed.status).toBe(429);
  expect(Number(guessed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // Another address, and a key that never failed from one, are not affected.
  expect((await call(`${second.url}/key`, { headers: { ...user.auth, 'x-forwarded-for': '198.51.100.251' } })).status).toBe(200);
});
