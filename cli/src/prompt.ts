// Reading from the person at the terminal: a visible line, or a hidden one for keys and secret values
// (raw mode, nothing echoed), with the prompt on stderr. Without a terminal, a line of stdin is read,
// so scripts can pipe a value in.
import readline from 'node:readline';
import { CliError, EXIT } from './exit-codes.ts';

/** All of stdin, without one trailing newline (what `echo value |` adds). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export async function promptLine(question: string): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.question(question, resolve);
      rl.once('close', () => reject(new CliError('No answer: the input closed', EXIT.error)));
      rl.once('SIGINT', () => reject(new CliError('Cancelled', EXIT.error)));
    });
  } finally {
    rl.close();
  }
}

/** Reads a line with nothing shown on the screen. Ctrl-C cancels, Ctrl-D ends the input. */
export async function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    process.stderr.write(question);
    const line = await readFirstLine();
    process.stderr.write('\n');
    return line;
  }
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (chunk: string) => {
        for (const char of chunk) {
          if (char === '\r' || char === '\n' || char === '\u0004') {
            stdin.off('data', onData);
            resolve(value);
            return;
          }
          if (char === '\u0003') {
            stdin.off('data', onData);
            reject(new CliError('Cancelled', EXIT.error));
            return;
          }
          if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
          else if (char >= ' ') value += char;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write('\n');
  }
}

async function readFirstLine(): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  try {
    for await (const line of rl) return line;
    return '';
  } finally {
    rl.close();
  }
}
