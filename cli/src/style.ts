// Colours, only where a person reads them: on a terminal, unless NO_COLOR is set (no-color.org) or
// the output is JSON. Each stream decides for itself, so `agent-service ... | less` gets plain text.
import type { WriteStream } from 'node:tty';

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

function wrap(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

const COLOURED: Style = {
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
};

const same = (text: string) => text;
const PLAIN: Style = { bold: same, dim: same, red: same, green: same, yellow: same, cyan: same };

export function colours(stream: NodeJS.WriteStream | WriteStream): boolean {
  const noColor = process.env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  return Boolean(stream.isTTY);
}

export function styleFor(stream: NodeJS.WriteStream): Style {
  return colours(stream) ? COLOURED : PLAIN;
}

/** For stdout and stderr respectively. */
export const out = (): Style => styleFor(process.stdout);
export const err = (): Style => styleFor(process.stderr);
