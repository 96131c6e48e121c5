// A terminal for the interactive parts of the CLI (chat, hidden prompts): a tmux session on a server
// of this test's own (-L), driven with send-keys and read with capture-pane, as a person would type
// and read.
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const TMUX = '/usr/bin/tmux';

export class Terminal {
  private constructor(
    private readonly socket: string,
    private readonly name: string,
  ) {}

  /**
   * Runs `command` (a shell command line) in `cwd` in a new 200x50 terminal with `env` added. The shell then
   * prints `[exit <status>]` and stays, so the status and the last screen can be read.
   */
  static start(command: string, env: Record<string, string>, cwd: string): Terminal {
    const socket = `agent-service-cli-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const terminal = new Terminal(socket, 'cli');
    const settings = Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    execFileSync(TMUX, [
      '-L',
      socket,
      'new-session',
      '-d',
      '-s',
      'cli',
      '-x',
      '200',
      '-y',
      '50',
      '-c',
      cwd,
      ...settings,
      `${command}; echo "[exit $?]"; sleep 600`,
    ]);
    return terminal;
  }

  /** Types text as it is (no key names). */
  type(text: string): void {
    execFileSync(TMUX, ['-L', this.socket, 'send-keys', '-t', this.name, '-l', text]);
  }

  /** Presses keys by name: Enter, C-c, C-d. */
  press(...keys: string[]): void {
    execFileSync(TMUX, ['-L', this.socket, 'send-keys', '-t', this.name, ...keys]);
  }

  /** What the screen shows, with its scrollback; `escapes` keeps the colour codes. */
  screen(options: { escapes?: boolean } = {}): string {
    const escapes = options.escapes ? ['-e'] : [];
    return execFileSync(TMUX, ['-L', this.socket, 'capture-pane', '-p', '-J', ...escapes, '-t', this.name, '-S', '-1000'], {
      encoding: 'utf8',
    });
  }

  /** Waits until the screen matches (the how-many-th match when `count` is given). */
  async waitFor(pattern: RegExp, options: { count?: number; timeoutMs?: number } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    for (;;) {
      const screen = this.screen();
      if ((screen.match(global)?.length ?? 0) >= (options.count ?? 1)) return screen;
      if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}:\n${screen}`);
      await sleep(100);
    }
  }

  close(): void {
    try {
      execFileSync(TMUX, ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // Gone already.
    }
  }
}
