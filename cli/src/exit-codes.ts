// The process's exit status, the same for every command (docs/cli.md: exit status), so scripts can
// tell a broken call from a wrong invocation and from a turn that ran and failed.
export const EXIT = {
  ok: 0,
  /** Anything that went wrong: the service refused, the network failed, a file is invalid. */
  error: 1,
  /** The command line itself: an unknown command or option, a missing argument. */
  usage: 2,
  /** The turn ran and ended turn.failed or turn.aborted. */
  turnFailed: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI explains itself: its message is printed as it is, with no stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.error,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}

/** Ends the command with this status after it printed what it had to (a failed turn, a failed deploy). */
export class ExitWith extends Error {
  constructor(readonly exitCode: ExitCode) {
    super(`exit ${exitCode}`);
    this.name = 'ExitWith';
  }
}
