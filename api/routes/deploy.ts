// POST /deploy: a JSONC bundle in, a new agent or a new revision out. Every problem is reported at
// once, each with a JSON pointer into the bundle; the failure keeps the interface's
// `{ok: false, errors}` shape and is also a problem document.
import { PROBLEM_CONTENT_TYPE, PROBLEMS, problemType } from '../../contract/problems.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { validateBundle } from '../../lib/bundle/index.ts';
import { deployRevision, getRevision } from '../../store/agents.ts';
import { reconcileSchedules } from '../triggers/schedule-reconcile.ts';
import { secretKeys } from '../../store/secrets.ts';

export const DEPLOY_CONTENT_TYPES = ['application/jsonc', 'application/json'];

const fieldErrors = {
  type: 'array',
  items: {
    type: 'object',
    required: ['path', 'message'],
    properties: { path: { type: 'string', description: 'JSON pointer into the bundle' }, message: { type: 'string' } },
  },
};

export function deployRoutes(deps: ApiDeps) {
  return [
    defineRoute<string>({
      method: 'post',
      path: '/deploy',
      summary: 'Deploy an agent bundle (creates the agent or adds a revision)',
      description:
        'The body is the bundle as JSONC (`application/jsonc`) or JSON: comments, trailing commas and a top-level `$schema` ' +
        'are accepted; unknown properties are rejected at every level. Its schema is served at /schema/bundle.json. ' +
        'A new agent answers 201, a new revision of an existing one 200. On failure, 400 lists every error with a JSON pointer.',
      tag: 'agents',
      auth: { kind: 'scope', scope: 'agents:write' },
      body: { required: true, contentTypes: DEPLOY_CONTENT_TYPES, documentOnly: true, schema: { $ref: '/schema/bundle.json' } },
      responses: {
        200: { description: 'A new revision of an existing agent', schema: deployedSchema() },
        201: { description: 'A new agent', schema: deployedSchema() },
        400: {
          description: 'The bundle is not valid; every error is listed',
          contentType: PROBLEM_CONTENT_TYPE,
          schema: {
            type: 'object',
            required: ['ok', 'errors'],
            properties: { ok: { const: false }, errors: fieldErrors, traceId: { type: 'string' } },
          },
        },
      },
      async handle({ req, principal }) {
        const text = typeof req.body === 'string' ? req.body : '';
        const result = validateBundle(text, { existingSecretKeys: await secretKeys(deps.db, principal!.userId) });
        if (!result.ok) {
          const first = result.errors[0]!;
          return {
            status: 400,
            headers: { 'content-type': PROBLEM_CONTENT_TYPE },
            body: {
              ok: false,
              errors: result.errors,
              type: problemType('invalid-bundle'),
              title: PROBLEMS['invalid-bundle'].title,
              status: PROBLEMS['invalid-bundle'].status,
              detail: `${result.errors.length} error${result.errors.length === 1 ? '' : 's'}; first: ${first.path || '(root)'} ${first.message}`,
              traceId: req.traceId,
            },
          };
        }
        const { agent, created } = await deployRevision(deps.db, {
          userId: principal!.userId,
          bundle: result.bundle,
          warnings: result.warnings,
        });
        req.log.info({ agentId: agent.id, revision: agent.revision }, 'deployed');
        const replaced = created ? undefined : await getRevision(deps.db, agent.id, agent.revision - 1);
        await reconcileSchedules(deps, agent.id, [result.bundle, replaced?.bundle], `Revision ${agent.revision} is stored`);
        return { status: created ? 201 : 200, body: { ok: true, agentId: agent.id, revision: agent.revision, warnings: result.warnings } };
      },
    }),
  ];
}

function deployedSchema() {
  return {
    type: 'object',
    required: ['ok', 'agentId', 'revision', 'warnings'],
    properties: {
      ok: { const: true },
      agentId: { type: 'string' },
      revision: { type: 'integer' },
      warnings: { type: 'array', items: { type: 'string' } },
    },
  };
}
