// What the model is shown of a tool's result. A result past TOOL_RESULT_MAX_CHARS (an `http` answer,
// a workspace file) would otherwise ride along in every later request of the session at full size;
// the model sees its beginning and a note saying how to get the rest. The stored result, and what
// GET /session and the events show, stay whole.

export interface ShownToolResult {
  /** The result as sent: unchanged, or its text cut with the note appended. */
  value: unknown;
  /** The text the model reads (JSON as serialised), for counting tokens. */
  text: string;
  cut: boolean;
}

export function shownToolResult(output: unknown, maxChars: number): ShownToolResult {
  const text = typeof output === 'string' ? output : (JSON.stringify(output ?? null) ?? 'null');
  if (text.length <= maxChars) return { value: output, text, cut: false };
  const shown = `${text.slice(0, maxChars)}\n\n${cutNote(maxChars, text.length)}`;
  return { value: shown, text: shown, cut: true };
}

function cutNote(shown: number, total: number): string {
  return (
    `[Cut: this result has ${total} characters; you are shown the first ${shown}. The whole result is stored ` +
    'with the conversation. If you need more of it, call the tool again for a smaller part (a range of lines, ' +
    'a page, a narrower query).]'
  );
}
