// Validation of an agent bundle, from the text of the deploy body to a typed bundle or the complete
// list of what is wrong with it. Pure: no I/O, no clock; the caller says which secrets exist.
//
// Three stages, each reporting everything it finds: the JSONC parse (syntax stops here), the JSON
// Schema (shape, defaults), then checks no schema keyword can express, which look only at parts
// the schema accepted.
import type { FieldError } from '../workflow-safe/errors.ts';
import { checkChannels } from './check-channels.ts';
import { checkAgents } from './check-agents.ts';
import { checkCommands } from './check-commands.ts';
import { checkFiles } from './check-files.ts';
import { checkModels } from './check-models.ts';
import { checkSecrets } from './check-secrets.ts';
import { checkSkills } from './check-skills.ts';
import { checkTools } from './check-tools.ts';
import { checkTriggers } from './check-triggers.ts';
import { checkWorkflows } from './check-workflows.ts';
import { MAX_REPORTED_ERRORS } from '../../contract/bundle-constants.ts';
import { parseJsonc } from './jsonc.ts';
import { isRecord, Report } from './report.ts';
import { checkBundleSchema } from './schema.ts';
import type { Bundle } from '../../contract/bundle.ts';

export * from '../../contract/bundle-constants.ts';
export type * from '../../contract/bundle.ts';
export { BUNDLE_SCHEMA } from '../../contract/bundle-schema.ts';

export interface BundleContext {
  /** Keys of the deploying user's secrets (for secretGrants and strictSecrets). */
  existingSecretKeys: ReadonlySet<string>;
  /**
   * Ids of the remote MCP servers the deploying user registered (PUT /mcp/<id>), which `mcps` may name
   * beside the built-in ones. Absent (offline checks), any id is taken as maybe registered.
   */
  registeredToolServers?: ReadonlySet<string>;
}

export type BundleValidation = { ok: true; bundle: Bundle; warnings: string[] } | { ok: false; errors: FieldError[] };

export function validateBundle(text: string, context: BundleContext): BundleValidation {
  if (typeof text !== 'string') return failure([{ path: '', message: 'the bundle must be sent as text' }]);
  const parsed = parseJsonc(text);
  if (!parsed.ok) return failure(parsed.errors);
  const value = parsed.value;
  if (!isRecord(value)) {
    return failure([{ path: '', message: `the bundle must be a JSON object, not ${kindOf(value)}` }]);
  }

  const issues = [...parsed.problems.map((problem) => ({ ...problem, keyword: 'parse' })), ...checkBundleSchema(value)];
  // Past the number of errors shown, further checks could only add to the "more errors" count.
  if (issues.length >= MAX_REPORTED_ERRORS) return failure(issues.map(({ path, message }) => ({ path, message })));
  const report = new Report(issues);
  checkModels(value, report);
  checkTools(value, report, context.registeredToolServers);
  checkFiles(value, report);
  checkSkills(value, report);
  checkSecrets(value, report, context.existingSecretKeys);
  checkChannels(value, report);
  checkTriggers(value, report);
  checkWorkflows(value, report);
  checkCommands(value, report);
  checkAgents(value, report);

  const errors = [...issues.map(({ path, message }) => ({ path, message })), ...report.errors];
  if (errors.length > 0) return failure(errors);
  // $schema only serves editors; it is not part of the agent.
  const { $schema: _schema, ...bundle } = value;
  return { ok: true, bundle: bundle as unknown as Bundle, warnings: report.warnings };
}

function failure(errors: FieldError[]): BundleValidation {
  if (errors.length <= MAX_REPORTED_ERRORS) return { ok: false, errors };
  const rest = errors.length - MAX_REPORTED_ERRORS;
  return {
    ok: false,
    errors: [...errors.slice(0, MAX_REPORTED_ERRORS), { path: '', message: `and ${rest} more error${rest === 1 ? '' : 's'}` }],
  };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
