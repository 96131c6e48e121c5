// Reading an answer out of a free-text reply (a Slack thread message, a Telegram reply, an email).
// People answer the way they talk: "yes", "2", "No - wait for Monday", "@bot approve, thanks", with
// the whole original message quoted below. Only the first line that is theirs counts; it names an
// option by name or number, and the rest of that line is kept as a note. Anything else is not an
// answer, so a chatty reply never approves by accident. Pure: the inbound route calls it.
import { APPROVAL_LIMITS } from '../../lib/workflow-safe/approvals.ts';

export interface ReplyMatch {
  choice: string;
  note: string | null;
}

/** The line above a quoted original ("On Mon, 1 Jan 2024, Ann <a@b.c> wrote:"), and Outlook's separators. */
const REPLY_HEADER = /^on\b.*\bwrote:\s*$/i;
const ORIGINAL_MESSAGE = /^(?:-{2,}\s*original message\s*-{2,}|_{10,})$/i;
/** Slack mentions: `<@U123>`, `<@U123|ann>`. (No `<` inside, so a long run of `<@a|` stays linear.) */
const MENTION = /<@[A-Za-z0-9]+(?:\|[^<>]*)?>/g;
const TRAILING_PUNCTUATION = /[\s.!?,;:]/u;
/** What may sit between an option and its note: space and separators like `-`, `:`, `,`. */
const LEADING_SEPARATORS = /^[\s\-–—:,;.!?)]+/u;
const ALPHANUMERIC = /[\p{L}\p{N}]/u;
/** `2`, `2.`, `2)`, then the end or a character that is not part of a word. */
const NUMBERED = /^(\d{1,3})(?:[.)]|(?=[^\p{L}\p{N}])|$)/u;

/** The first line the person wrote: not empty, not quoted, above any quoted original. */
export function answerLine(text: string): string | undefined {
  const lines = text.split(/\r\n|\r|\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.replace(MENTION, '').trim();
    if (REPLY_HEADER.test(line) || ORIGINAL_MESSAGE.test(line)) return undefined;
    // Gmail wraps a long header: "On Mon, … Ann <" then "ann@example.com> wrote:".
    if (/^on\s/i.test(line) && REPLY_HEADER.test(`${line} ${lines[index + 1]?.trim() ?? ''}`)) return undefined;
    if (line === '' || line.startsWith('>')) continue;
    return line;
  }
  return undefined;
}

function noteOf(rest: string): string | null {
  const note = rest.replace(LEADING_SEPARATORS, '').trim();
  return note === '' ? null : note.slice(0, APPROVAL_LIMITS.noteChars);
}

/**
 * Without trailing space and punctuation. A loop, not a `[…]+$` regex: that one backtracks from
 * every position of a long run of punctuation, and reply text comes from strangers.
 */
function withoutTrailingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0 && TRAILING_PUNCTUATION.test(text[end - 1]!)) end -= 1;
  return text.slice(0, end);
}

function sameText(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * The option a reply names, and its note. A line names an option when, ignoring case, surrounding
 * space and trailing punctuation, it is the option, or starts with it followed by a character that
 * cannot continue a word (the longest such option wins), or is its 1-based number.
 */
export function matchReply(options: readonly string[], text: string): ReplyMatch | undefined {
  const line = answerLine(text);
  if (line === undefined) return undefined;
  const bare = withoutTrailingPunctuation(line);
  // The option as written first, so that "ok" and "ok!" can both be options.
  const exact =
    options.find((option) => sameText(option, line)) ??
    (bare === '' ? undefined : options.find((option) => sameText(withoutTrailingPunctuation(option), bare)));
  if (exact !== undefined) return { choice: exact, note: null };

  const prefixed = options
    .filter((option) => {
      const next = line.slice(option.length).codePointAt(0);
      return next !== undefined && sameText(line.slice(0, option.length), option) && !ALPHANUMERIC.test(String.fromCodePoint(next));
    })
    .sort((a, b) => b.length - a.length)[0];
  if (prefixed !== undefined) return { choice: prefixed, note: noteOf(line.slice(prefixed.length)) };

  const numbered = NUMBERED.exec(line);
  if (numbered) {
    const option = options[Number(numbered[1]) - 1];
    if (option !== undefined && Number(numbered[1]) >= 1) return { choice: option, note: noteOf(line.slice(numbered[0].length)) };
  }
  return undefined;
}
