// API answers carry no ETag, so a browser's conditional GET (If-None-Match) is answered in full, as
// the contract documents, never with a 304 and no body.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';

const test = agentTest();

test('a repeated GET with If-None-Match is a 200 with its body', async ({ env }) => {
  const { name } = await env.deploy();
  const first = await call<{ name: string }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
  expect(first.status).toBe(200);
  expect(first.headers.get('etag')).toBeNull();
  const again = await call<{ name: string }>(`${env.api.url}/agent/${name}`, {
    headers: { ...env.user.auth, 'if-none-match': 'W/"anything"' },
  });
  expect(again.status).toBe(200);
  expect(again.body.name).toBe(name);
});
