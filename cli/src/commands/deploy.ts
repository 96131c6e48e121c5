// deploy [file]: validate locally (errors as file:line:col with the line and a caret), inline skill
// files from disk, then deploy and show the revision, the warnings and the trigger URLs. With --stage the
// revision is stored but not live (commands/revisions.ts promotes it).
import fs from 'node:fs';
import path from 'node:path';
import { BadRequestError, PermissionDeniedError, type AgentDetail, type Client, type Deployed } from '@agent-service/sdk';
import type { Command } from 'commander';
import { parse } from 'jsonc-parser';
import { contextOf } from '../context.ts';
import { CliError, EXIT, ExitWith } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { inlineFilesFromDisk } from '../deploy/inline-files.ts';
import { renderLocated } from '../deploy/render-errors.ts';
import { locateErrors, validateLocally, type LocatedError } from '../deploy/validate.ts';
import { note, printJson, printLine, warn } from '../output.ts';
import { withSpinner } from '../spinner.ts';
import { err } from '../style.ts';

interface DeployOptions {
  dryRun?: boolean;
  stage?: boolean;
}

export function registerDeploy(program: Command): void {
  const deploy = program
    .command('deploy')
    .description('Validate a bundle (JSONC) locally, then deploy it: a new agent, or the next revision of one')
    .argument('[file]', 'the bundle', 'service.jsonc')
    .option('--dry-run', 'validate only (with your secrets when logged in); deploy nothing')
    .option('--stage', 'store the revision without making it live; `promote` or `traffic` sends sessions to it')
    .action(async (file: string, options: DeployOptions, command: Command) => {
      const context = contextOf(command);
      let original: string;
      try {
        original = fs.readFileSync(file, 'utf8');
      } catch (error) {
        throw new CliError(`Cannot read ${file}: ${(error as Error).message}`);
      }
      const { text, added } = inlineFilesFromDisk(original, path.dirname(path.resolve(file)));
      const client = loggedIn(context) ? context.client() : undefined;
      if (!client && !options.dryRun) context.client(); // throws "not logged in"
      const secretKeys = client
        ? await withSpinner('Reading your secrets', () => secretKeysOf(client), { quiet: context.json })
        : undefined;

      const local = validateLocally(original, text, secretKeys);
      if (!local.ok) failWith(file, local.errors, context.json);
      if (options.dryRun || !client) {
        if (context.json) printJson({ ok: true, dryRun: true, warnings: local.warnings, inlined: added });
        else {
          for (const warning of local.warnings) warn(warning);
          note(
            `${err().green('Valid')}: ${file}${added.length ? ` (with ${added.length} file${added.length > 1 ? 's' : ''} from disk)` : ''}; nothing deployed (--dry-run).`,
          );
        }
        return;
      }

      const deployed = await withSpinner(
        `${options.stage ? 'Staging' : 'Deploying'} ${file}`,
        () => client.agents.deploy(text, { stage: options.stage }),
        { quiet: context.json },
      ).catch((error: unknown) => {
        if (error instanceof BadRequestError && error.errors.length > 0) failWith(file, locateErrors(original, error.errors), context.json);
        throw error;
      });
      const name = nameOf(text);
      if (options.stage) return printStaged(deployed, name ?? deployed.agentId, added, context.json);
      const detail = name ? await client.agents.retrieve(name) : undefined;
      const triggers = detail?.triggers ?? [];
      if (context.json) {
        printJson({ ...deployed, name, triggers, inlined: added });
        return;
      }
      for (const warning of deployed.warnings) warn(warning);
      printLine(`${err().green('Deployed')} ${name ?? deployed.agentId} revision ${deployed.revision}`);
      for (const trigger of triggers) printLine(`  ${describeTrigger(trigger)}`);
    });
  withExamples(deploy, [
    'agent-service deploy                       # service.jsonc in this folder',
    'agent-service deploy agents/support.jsonc',
    'agent-service deploy --dry-run             # check it, deploy nothing',
    'agent-service deploy --stage               # stored, not live: then agent-service promote <agent> <revision>',
  ]);
}

/** A staged revision serves nothing yet, and its triggers are not the live ones: it says how to go on instead. */
function printStaged(deployed: Deployed, name: string, inlined: string[], json: boolean): void {
  if (json) {
    printJson({ ...deployed, name, inlined });
    return;
  }
  for (const warning of deployed.warnings) warn(warning);
  printLine(`${err().green('Staged')} revision ${deployed.revision} of ${name} (live: ${deployed.liveRevision})`);
  note(
    err().dim(
      `Promote it with \`agent-service promote ${name} ${deployed.revision}\`, or send it a share of new sessions with ` +
        `\`agent-service traffic ${name} ${deployed.revision}=10\`.`,
    ),
  );
}

function loggedIn(context: ReturnType<typeof contextOf>): boolean {
  return Boolean((process.env.AGENT_SERVICE_API_KEY && (process.env.AGENT_SERVICE_URL || context.profile)) || context.profile);
}

/** The names of your secrets; undefined (grants left to the service) when this key may not read them. */
async function secretKeysOf(client: Client): Promise<ReadonlySet<string> | undefined> {
  try {
    const { secrets } = await client.secrets.list();
    return new Set(secrets.map((secret) => secret.key));
  } catch (error) {
    if (error instanceof PermissionDeniedError) return undefined;
    throw error;
  }
}

type TriggerView = AgentDetail['triggers'][number];

function failWith(file: string, errors: LocatedError[], json: boolean): never {
  if (json) {
    printJson({
      ok: false,
      errors: errors.map(({ path: pointer, message, where }) => ({ path: pointer, message, line: where.line, column: where.column })),
    });
  } else {
    for (const error of errors)
      process.stderr.write(`${renderLocated(file, error.where, error.path ? `${error.path}: ${error.message}` : error.message)}\n\n`);
    note(`${errors.length} error${errors.length > 1 ? 's' : ''}; nothing deployed.`);
  }
  throw new ExitWith(EXIT.error);
}

function nameOf(text: string): string | undefined {
  const bundle = parse(text, [], { allowTrailingComma: true }) as { name?: unknown } | undefined;
  return typeof bundle?.name === 'string' ? bundle.name : undefined;
}

export function describeTrigger(trigger: TriggerView): string {
  const workflow = trigger.workflow ? `  -> workflow ${trigger.workflow}` : '';
  if (trigger.kind === 'webhook') return `webhook  POST ${trigger.url ?? '?'}${workflow}`;
  return `cron     ${trigger.expression ?? '?'}${trigger.timezone ? ` (${trigger.timezone})` : ''}${workflow}`;
}
