// How a failure reaches the person (stderr, one line and the service's field errors) or a script
// (under --json, the problem as JSON on stdout too), and which exit status it ends with.
import { AgentServiceError, APIConnectionError, APIError, AuthenticationError, APIUserAbortError } from '@agent-service/sdk';
import { CommanderError } from 'commander';
import { CliError, EXIT, ExitWith, type ExitCode } from './exit-codes.ts';
import { printJson } from './output.ts';
import { err } from './style.ts';
import { terminalText } from './terminal-text.ts';

export function reportError(error: unknown, json: boolean): ExitCode {
  if (error instanceof ExitWith) return error.exitCode;
  if (error instanceof CommanderError) {
    // Commander printed its message (or the help) already.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  const style = err();
  if (error instanceof CliError) {
    if (json) printJson({ error: { message: error.message } });
    process.stderr.write(`${style.red('error:')} ${terminalText(error.message)}\n`);
    return error.exitCode;
  }
  if (error instanceof APIError) {
    if (json)
      printJson({
        error: { status: error.status, title: error.title, detail: error.detail, errors: error.errors, traceId: error.traceId },
      });
    const title = terminalText(error.detail ?? error.title ?? error.message);
    process.stderr.write(
      `${style.red('error:')} ${title} ${style.dim(`(${error.status}${error.traceId ? `, trace ${error.traceId}` : ''})`)}\n`,
    );
    for (const field of error.errors ?? []) process.stderr.write(`  ${terminalText(field.path || '/')}: ${terminalText(field.message)}\n`);
    if (error instanceof AuthenticationError) process.stderr.write(`${style.dim('Log in again with `agent-service login`.')}\n`);
    return EXIT.error;
  }
  if (error instanceof APIUserAbortError) return EXIT.error;
  if (error instanceof APIConnectionError || error instanceof AgentServiceError) {
    if (json) printJson({ error: { message: error.message } });
    process.stderr.write(`${style.red('error:')} ${terminalText(error.message)}\n`);
    return EXIT.error;
  }
  if (json) printJson({ error: { message: String(error) } });
  process.stderr.write(`${style.red('error:')} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT.error;
}
