// The response check of the test harness (test/helpers/harness/contract-check.ts) catches what it must:
// a status the document does not list, a content type it does not list, a body off its schema.
import { expect, test } from 'vitest';
import { checkResponse, compileSchema } from '../helpers/harness/contract-check.ts';
import { openApiDocument } from '../../contract/openapi/index.ts';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const problem = { type: 'https://agent-service.dev/problems/not-found', title: 'Not found', status: 404, traceId: 't1' };

test('an answer as documented passes', () => {
  expect(
    checkResponse({ method: 'GET', path: '/session/ses_1', status: 404, contentType: 'application/problem+json', body: json(problem) }),
  ).toBeUndefined();
  expect(
    checkResponse({ method: 'GET', path: '/key', status: 200, contentType: 'application/json; charset=utf-8', body: json({ keys: [] }) }),
  ).toBeUndefined();
  expect(
    checkResponse({ method: 'POST', path: '/session/ses_1', status: 200, contentType: 'text/event-stream', body: undefined }),
  ).toBeUndefined();
  expect(
    checkResponse({ method: 'DELETE', path: '/key/key_1', status: 204, contentType: undefined, body: Buffer.alloc(0) }),
  ).toBeUndefined();
});

test('a status, a content type or a body the document does not have is named', () => {
  expect(checkResponse({ method: 'GET', path: '/key', status: 418, contentType: 'application/json', body: json({}) })).toMatch(
    /GET \/key \(listKeys\) answered 418, a status the document does not list/,
  );
  expect(checkResponse({ method: 'GET', path: '/session/ses_1', status: 404, contentType: 'text/plain', body: Buffer.from('no') })).toMatch(
    /as text\/plain; the document lists application\/problem\+json/,
  );
  expect(
    checkResponse({ method: 'GET', path: '/key', status: 200, contentType: 'application/json', body: json({ keys: [{ id: 1 }] }) }),
  ).toMatch(/body does not match the document: \/keys\/0/);
});

test('every schema of the document compiles, its references resolved', () => {
  const document = openApiDocument({ version: 'test' });
  let compiled = 0;
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [status, answer] of Object.entries(operation.responses)) {
        for (const [mediaType, { schema }] of Object.entries(answer.content ?? {})) {
          expect(() => compileSchema(schema), `${method} ${path} ${status} ${mediaType}`).not.toThrow();
          compiled += 1;
        }
      }
    }
  }
  expect(compiled).toBeGreaterThan(100);
});
