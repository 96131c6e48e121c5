// Text the service hands on from others (an MCP server's tool descriptions, a model's reply, a provider's
// error, a name someone chose) printed on a person's terminal: a terminal acts on escape sequences, so a
// server could retitle the window, rewrite lines already shown, hide text or, on some terminals, write
// to the clipboard. Every such text is printed through `terminalText`, which keeps what reads and drops
// what acts: ANSI escape sequences whole (Node's own parser), then any C0 control but newline and tab,
// DEL, and C1 controls. JSON output needs none of this: JSON.stringify escapes every control character.
import { stripVTControlCharacters } from 'node:util';

// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

export function terminalText(text: string): string {
  return stripVTControlCharacters(text).replace(CONTROLS, '');
}
