// Custom commands (the bundle's `command` map): a template becomes a prompt. One resolver, here in the
// contract, serves the API (POST /agent/<name>/command/<command>), the SDK, the CLI and the dashboard,
// so a command resolves the same wherever it is run.
//
// Placeholders:
//   ${1}, ${2}, ...  positional arguments (1-based)
//   $ARGUMENTS       every positional argument, joined by single spaces
//   ${name}          the value of the flag --name (letters, digits, '_' and '-', starting with a letter)
// Anything else is literal text, `$` included ("costs $5" stays as written). A missing positional or
// flag is an error naming it; a flag the template does not use is an error; positional arguments
// beyond the highest ${n} are an error unless the template uses $ARGUMENTS.

/** Matches every placeholder; group 1 is a positional index or a flag name, absent for $ARGUMENTS. */
const PLACEHOLDER = /\$\{([1-9][0-9]{0,2}|[A-Za-z][A-Za-z0-9_-]{0,62})\}|\$ARGUMENTS\b/g;

/** A `${...}` that is not a placeholder: most likely a typo the author wants to hear about at deploy. */
const MALFORMED = /\$\{(?![1-9][0-9]{0,2}\}|[A-Za-z][A-Za-z0-9_-]{0,62}\})[^}]*\}?/;

export interface CommandPlaceholders {
  /** The highest positional index used (0 when none): the command takes that many arguments. */
  positionals: number;
  /** Flag names, in order of first use. */
  flags: string[];
  /** Whether `$ARGUMENTS` appears: the command then takes any number of arguments. */
  allArguments: boolean;
}

export type FlagValue = string | number | boolean;

export interface CommandInput {
  args?: readonly string[];
  flags?: Readonly<Record<string, FlagValue>>;
}

/** A problem with the input, located by a JSON pointer into `{args, flags}`. */
export interface CommandError {
  path: string;
  message: string;
}

export type CommandResolution = { ok: true; prompt: string } | { ok: false; errors: CommandError[] };

export function commandPlaceholders(template: string): CommandPlaceholders {
  let positionals = 0;
  const flags: string[] = [];
  let allArguments = false;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1];
    if (name === undefined) allArguments = true;
    else if (/^[0-9]/.test(name)) positionals = Math.max(positionals, Number(name));
    else if (!flags.includes(name)) flags.push(name);
  }
  return { positionals, flags, allArguments };
}

/** Why a template cannot be used, or undefined when it can: deploy reports it at the template's path. */
export function templateProblem(template: string): string | undefined {
  const malformed = MALFORMED.exec(template);
  if (malformed) {
    return `"${malformed[0]}" is not a placeholder: use \${1}, \${2}, ... for arguments, \${name} for the flag --name, or $ARGUMENTS`;
  }
  return undefined;
}

/** A one-line usage, e.g. `<1> <2> --tone <tone>` or `[arguments...]`. */
export function commandUsage(template: string): string {
  const { positionals, flags, allArguments } = commandPlaceholders(template);
  const parts = Array.from({ length: positionals }, (_, index) => `<${index + 1}>`);
  if (allArguments) parts.push('[arguments...]');
  for (const flag of flags) parts.push(`--${flag} <${flag}>`);
  return parts.join(' ');
}

export function resolveCommand(template: string, input: CommandInput = {}): CommandResolution {
  const args = input.args ?? [];
  const flags = input.flags ?? {};
  const used = commandPlaceholders(template);
  const errors: CommandError[] = [];
  for (let index = args.length; index < used.positionals; index++) {
    errors.push({ path: `/args/${index}`, message: `argument \${${index + 1}} is missing` });
  }
  if (!used.allArguments && args.length > used.positionals) {
    const takes = used.positionals === 0 ? 'takes no arguments' : `takes ${used.positionals} argument${used.positionals > 1 ? 's' : ''}`;
    errors.push({ path: `/args/${used.positionals}`, message: `unexpected argument: the command ${takes}` });
  }
  for (const flag of used.flags) {
    if (!Object.hasOwn(flags, flag)) errors.push({ path: `/flags/${pointerToken(flag)}`, message: `flag --${flag} is missing` });
  }
  for (const flag of Object.keys(flags)) {
    if (!used.flags.includes(flag)) {
      const known = used.flags.length > 0 ? `; flags: ${used.flags.map((name) => `--${name}`).join(', ')}` : '; the command takes no flags';
      errors.push({ path: `/flags/${pointerToken(flag)}`, message: `unknown flag --${flag}${known}` });
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const prompt = template.replace(PLACEHOLDER, (_whole, name: string | undefined) => {
    if (name === undefined) return args.join(' ');
    if (/^[0-9]/.test(name)) return args[Number(name) - 1]!;
    return String(flags[name]);
  });
  return { ok: true, prompt };
}

/** RFC 6901: `~` and `/` escaped, so a flag named "a/b" still points at itself. */
function pointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
