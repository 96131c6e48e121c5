// A client generated from /openapi.json the way many teams make one (openapi-typescript for the types,
// openapi-fetch for the calls) type-checks under `strict` against the answers people read most: a
// waiting send's JSON (its messageId, a waiting turn's `waitingFor`) and a page of a session's events,
// with no cast, given the media types it reads (docs/http-api.md shows how). The document is the committed openapi.json, which a test keeps equal to the contract.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// What an application writes against the generated types. `Media` picks the JSON answers and the JSON
// problems (application/problem+json): the same operations also answer an SSE stream, when asked for one,
// which a JSON client never does. (Without it, openapi-fetch types a send's data as JSON or stream text.)
const CONSUMER = `
import createClient from 'openapi-fetch';
import type { paths } from './openapi';

const client = createClient<paths, \`application/\${string}json\`>({ baseUrl: 'http://localhost:3000', headers: { authorization: 'Bearer sk_x' } });

export async function waitingSend(sessionId: string): Promise<string> {
  const { data, error } = await client.POST('/session/{id}', {
    params: { path: { id: sessionId } },
    body: { parts: [{ type: 'text', text: 'Hello' }] },
  });
  if (error) throw new Error(error.detail ?? error.title);
  const messageId: string = data.messageId;
  // A 202 (the turn outlived the wait) has no status: only the message id.
  if ('status' in data) return data.status === 'waiting' ? data.waitingFor.kind : data.reply;
  return messageId;
}

export async function eventsPage(sessionId: string, after: number): Promise<{ types: string[]; next: number | null }> {
  const { data, error } = await client.GET('/session/{id}/events', { params: { path: { id: sessionId }, query: { after } } });
  if (error) throw new Error(error.title);
  return { types: data.events.map((event) => event.type), next: data.next };
}
`;

describe('a client generated from openapi.json', () => {
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'generated-client-'));
    const document = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')) as Parameters<typeof openapiTS>[0];
    fs.writeFileSync(path.join(dir, 'openapi.d.ts'), astToString(await openapiTS(document)));
    fs.writeFileSync(path.join(dir, 'consumer.ts'), CONSUMER);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('compiles under strict, reading a waiting send and an events page without a cast', () => {
    const program = ts.createProgram([path.join(dir, 'consumer.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      // openapi-fetch from this repository's node_modules.
      baseUrl: ROOT,
      paths: { 'openapi-fetch': [path.join(ROOT, 'node_modules/openapi-fetch')] },
      typeRoots: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    expect(problems).toEqual([]);
  });
});
