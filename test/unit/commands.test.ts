// The custom command resolver every client shares: positional, $ARGUMENTS and flag placeholders, each
// missing or unknown input named by a JSON pointer, and templates checked at deploy.
import { describe, expect, test } from 'vitest';
import { commandPlaceholders, commandUsage, resolveCommand, templateProblem } from '../../contract/commands.ts';
import { validateBundle } from '../../lib/bundle/index.ts';

describe('resolveCommand', () => {
  test('fills positional and flag placeholders, each as often as it appears', () => {
    const template = 'Review ${1} against ${2} in a ${tone} tone. Again: ${1}.';
    expect(resolveCommand(template, { args: ['pr-12', 'main'], flags: { tone: 'kind' } })).toEqual({
      ok: true,
      prompt: 'Review pr-12 against main in a kind tone. Again: pr-12.',
    });
  });

  test('$ARGUMENTS is every argument joined by spaces, and takes any number', () => {
    expect(resolveCommand('Summarise: $ARGUMENTS', { args: ['a', 'b c', 'd'] })).toEqual({ ok: true, prompt: 'Summarise: a b c d' });
    expect(resolveCommand('Summarise: $ARGUMENTS', {})).toEqual({ ok: true, prompt: 'Summarise: ' });
    expect(resolveCommand('First ${1}, all $ARGUMENTS', { args: ['x', 'y'] })).toEqual({ ok: true, prompt: 'First x, all x y' });
  });

  test('flag values may be numbers and booleans; text that only looks like a placeholder stays as written', () => {
    // A malformed `${ 1 }` is refused at deploy (templateProblem); a stored template resolves around it.
    expect(
      resolveCommand('Top ${count}, verbose ${verbose}; costs $5 and $1, ${ 1 } stays', { flags: { count: 3, verbose: true } }),
    ).toEqual({
      ok: true,
      prompt: 'Top 3, verbose true; costs $5 and $1, ${ 1 } stays',
    });
  });

  test('a missing argument or flag, an extra argument and an unknown flag are each named', () => {
    const result = resolveCommand('Compare ${1} with ${2} as ${format}', { args: ['a'], flags: { colour: 'red' } });
    expect(result).toEqual({
      ok: false,
      errors: [
        { path: '/args/1', message: 'argument ${2} is missing' },
        { path: '/flags/format', message: 'flag --format is missing' },
        { path: '/flags/colour', message: 'unknown flag --colour; flags: --format' },
      ],
    });
    expect(resolveCommand('No input', { args: ['x'], flags: { 'a/b': 'y' } })).toEqual({
      ok: false,
      errors: [
        { path: '/args/0', message: 'unexpected argument: the command takes no arguments' },
        { path: '/flags/a~1b', message: 'unknown flag --a/b; the command takes no flags' },
      ],
    });
    expect(resolveCommand('One ${1}', { args: ['x', 'y'] })).toMatchObject({
      errors: [{ path: '/args/1', message: 'unexpected argument: the command takes 1 argument' }],
    });
  });

  test('placeholder values are not expanded again', () => {
    expect(resolveCommand('Say ${1}', { args: ['${1} and $ARGUMENTS'] })).toEqual({ ok: true, prompt: 'Say ${1} and $ARGUMENTS' });
  });
});

describe('what a command needs', () => {
  test('placeholders and usage, for --help and GET /agent/<name>', () => {
    const template = 'Translate ${2} from ${1} into ${lang}, formally: ${formal}; ${lang} again';
    expect(commandPlaceholders(template)).toEqual({ positionals: 2, flags: ['lang', 'formal'], allArguments: false });
    expect(commandUsage(template)).toBe('<1> <2> --lang <lang> --formal <formal>');
    expect(commandUsage('Do $ARGUMENTS')).toBe('[arguments...]');
  });

  test('malformed placeholders are found', () => {
    expect(templateProblem('fine ${1} ${name} $ARGUMENTS $5')).toBeUndefined();
    for (const bad of ['${}', '${0}', '${01}', '${two words}', '${1', '${-x}']) {
      expect(templateProblem(`x ${bad} y`), bad).toMatch(/is not a placeholder/);
    }
  });

  test('deploy reports a malformed template at its path', () => {
    const text = JSON.stringify({
      name: 'cmds',
      model: { providerId: 'openai-compatible', modelId: 'm' },
      command: { ok: { template: 'Review ${1}' }, broken: { template: 'Review ${ 1 }' } },
    });
    const result = validateBundle(text, { existingSecretKeys: new Set() });
    expect(result).toEqual({
      ok: false,
      errors: [{ path: '/command/broken/template', message: expect.stringMatching(/^"\$\{ 1 \}" is not a placeholder/) }],
    });
  });
});
