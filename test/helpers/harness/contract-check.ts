// Every response the in-process API sends in a test is checked against the OpenAPI document: its
// status must be one the operation lists, its content type one listed for that status, and a JSON
// body must validate against that status's schema (draft 2020-12, as OpenAPI 3.1). Bodies that are
// not JSON (SSE streams, HTML pages, downloads) are checked for status and content type. A
// disagreement is recorded here; contract-setup.ts (a vitest setup file) fails the test that caused it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { addFormats } from '../../../lib/bundle/ajv-formats.ts';
import { openApiDocument, type OpenApiOperation } from '../../../contract/openapi/index.ts';
import { SERVICE_VERSION } from '../../../lib/version.ts';

const COMPONENTS_ID = 'https://agent-service.dev/openapi-components';
/** Bodies beyond this are checked for status and content type only. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const document = openApiDocument({ version: SERVICE_VERSION });
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat('binary', true);
ajv.addSchema({ $id: COMPONENTS_ID, components: document.components });

/** `#/components/...` resolves in the document; compiled alone, a schema reaches it through its $id. */
function resolvable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolvable);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/') ? `${COMPONENTS_ID}${inner}` : resolvable(inner),
    ]),
  );
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  operation: OpenApiOperation;
}

const routes: Route[] = Object.entries(document.paths).flatMap(([template, operations]) =>
  Object.entries(operations).map(([method, operation]) => ({
    method,
    template,
    pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i'),
    operation,
  })),
);

const validators = new Map<string, ValidateFunction>();

/** A schema of the document, compiled with its `#/components/...` references resolved. */
export function compileSchema(schema: unknown): ValidateFunction {
  return ajv.compile(resolvable(schema) as object);
}

function validatorFor(key: string, schema: unknown): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = compileSchema(schema);
    validators.set(key, validate);
  }
  return validate;
}

const violations: string[] = [];

/** The violations recorded since the last call. */
export function takeViolations(): string[] {
  return violations.splice(0);
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** What the document says of one answer; a disagreement as text, or undefined. */
export function checkResponse(answer: {
  method: string;
  path: string;
  status: number;
  contentType: string | undefined;
  body: Buffer | undefined;
}): string | undefined {
  const method = answer.method.toLowerCase() === 'head' ? 'get' : answer.method.toLowerCase();
  const route = routes.find((candidate) => candidate.method === method && candidate.pattern.test(answer.path));
  // A path no operation has is the API's 404; nothing to check it against.
  if (!route) return undefined;
  const where = `${answer.method} ${answer.path} (${route.operation.operationId}) answered ${answer.status}`;
  const declared = route.operation.responses[String(answer.status)];
  if (!declared) return `${where}, a status the document does not list`;
  const mediaType = answer.contentType?.split(';')[0]!.trim().toLowerCase();
  const content = declared.content ?? {};
  if (mediaType === undefined) {
    return Object.keys(content).length === 0 || !answer.body?.length ? undefined : `${where} with a body but no content type`;
  }
  const entry = content[mediaType] ?? content['*/*'];
  if (!entry) return `${where} as ${mediaType}; the document lists ${Object.keys(content).join(', ') || 'no body'}`;
  if (!isJson(mediaType) || answer.method.toUpperCase() === 'HEAD' || answer.body === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return `${where} with a ${mediaType} body that is not JSON`;
  }
  const validate = validatorFor(`${route.operation.operationId} ${answer.status} ${mediaType}`, entry.schema);
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '(root)'} ${error.message ?? ''}`);
  return `${where}: the ${mediaType} body does not match the document: ${errors.join('; ')}; body ${JSON.stringify(body).slice(0, 500)}`;
}

/** Watches one exchange: keeps the body as it is written and checks the answer once it is sent. */
export function observe(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let streamed = false;
  const keep = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    if (!streamed && String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) streamed = true;
    if (streamed || size > MAX_BODY_BYTES) return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    size += buffer.length;
    chunks.push(buffer);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as typeof res.write;
  res.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return end(...args);
  }) as typeof res.end;
  res.once('close', () => {
    if (!res.headersSent) return;
    // Express rewrites req.url inside a mounted router (/app/usage is /usage there); originalUrl is what was asked.
    const path = new URL((req as { originalUrl?: string }).originalUrl ?? req.url ?? '/', 'http://api').pathname;
    const contentType = res.getHeader('content-type');
    const found = checkResponse({
      method: req.method ?? 'GET',
      path,
      status: res.statusCode,
      contentType: contentType === undefined ? undefined : String(contentType),
      body: streamed || size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks),
    });
    if (found) violations.push(found);
  });
}
