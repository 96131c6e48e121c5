// How an approval reads on every channel, written once so Slack, Telegram, email and the webhook's
// human-facing fields say the same thing: who asks, the question exactly as asked, the numbered
// options (a reply may name an option by its number), when it expires, and how to answer (one-click
// links, or a reply in the thread). Pure: providers decide only the markup around it.
import type { ApprovalMessage } from './types.ts';
import { escapeHtml } from '../../lib/escape-html.ts';
import { numberedOptions } from '../../lib/workflow-safe/approvals.ts';

export const REPLY_INSTRUCTIONS =
  "Reply in this thread with the option's name or number; anything after it on the same line is kept as a note.";

/** Under the buttons of an approver's own chat message, whose replies vote as them. */
export const REPLY_TOO_INSTRUCTIONS =
  "Or reply to this message with the option's name or number; anything after it on the same line is kept as a note.";

/** Characters of the question shown in an email subject. */
const SUBJECT_QUESTION_CHARS = 60;

export function approvalHeading(message: Pick<ApprovalMessage, 'agentName'>): string {
  return message.agentName ? `Question from ${message.agentName}` : 'Question';
}

/** `Expires 2025-01-02 15:04 UTC`: one unambiguous zone, since the reader's is unknown. */
export function expiryLine(expiresAt: string): string {
  const date = new Date(expiresAt);
  if (Number.isNaN(date.getTime())) return `Expires ${expiresAt}`;
  const iso = date.toISOString();
  return `Expires ${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** `Question from agent: first 60 characters…`, on one line. */
export function approvalSubject(message: Pick<ApprovalMessage, 'agentName' | 'question'>): string {
  const flat = message.question.replace(/\s+/g, ' ').trim();
  const cut = flat.length > SUBJECT_QUESTION_CHARS ? `${flat.slice(0, SUBJECT_QUESTION_CHARS).trimEnd()}…` : flat;
  return `${approvalHeading(message)}: ${cut}`;
}

export interface TextOptions {
  /** `buttons` when the channel shows the option links as buttons beside the text (Telegram). */
  linksAs?: 'text' | 'buttons';
  /**
   * The channel's limit on the whole text. Only when the text would exceed it is the question cut,
   * ending with a pointer to the answer page that shows it in full.
   */
  maxChars?: number;
}

/** The whole message as plain text. The question is kept verbatim unless `maxChars` forces a cut. */
export function approvalText(message: ApprovalMessage, options: TextOptions = {}): string {
  const text = compose(message, message.question, options);
  if (options.maxChars === undefined || text.length <= options.maxChars) return text;
  const suffix = `… (the full question: ${message.links.page})`;
  const room = Math.max(0, options.maxChars - (text.length - message.question.length) - suffix.length);
  return compose(message, message.question.slice(0, room) + suffix, options).slice(0, options.maxChars);
}

function compose(message: ApprovalMessage, question: string, options: TextOptions): string {
  const sections = [`${approvalHeading(message)}:`, question, ['Options:', ...numberedOptions(message.options)].join('\n')];
  if (message.standing) sections.push(message.standing);
  sections.push(`${expiryLine(message.expiresAt)}.`);
  if (message.answerVia === 'reply') sections.push(REPLY_INSTRUCTIONS);
  else if (options.linksAs === 'buttons')
    sections.push(`Answer with one of the buttons below.${message.repliesToo ? ` ${REPLY_TOO_INSTRUCTIONS}` : ''}`);
  else {
    const links = message.links.options.map(({ option, url }, index) => `${index + 1}. ${option}: ${url}`);
    sections.push(['Answer with one click:', ...links, `All options on one page: ${message.links.page}`].join('\n'));
  }
  return sections.join('\n\n');
}

const BUTTON_STYLE =
  'display:inline-block;margin:4px 8px 4px 0;padding:8px 16px;border-radius:4px;background:#1f6feb;color:#ffffff;text-decoration:none;font-weight:bold';

/** The message as an HTML email body; every value from the approval is escaped. */
export function approvalHtml(message: ApprovalMessage): string {
  const question = escapeHtml(message.question).replace(/\r?\n/g, '<br>\n');
  const options = message.options.map((option) => `<li>${escapeHtml(option)}</li>`).join('');
  const answer =
    message.answerVia === 'reply'
      ? `<p>${escapeHtml(REPLY_INSTRUCTIONS)}</p>`
      : `<p>${message.links.options
          .map(({ option, url }) => `<a href="${escapeHtml(url)}" style="${BUTTON_STYLE}">${escapeHtml(option)}</a>`)
          .join('\n')}</p>\n<p><a href="${escapeHtml(message.links.page)}">All options on one page</a></p>`;
  return [
    '<!doctype html>',
    '<html><body style="font-family:sans-serif;line-height:1.4">',
    `<p><strong>${escapeHtml(approvalHeading(message))}:</strong></p>`,
    `<p>${question}</p>`,
    `<ol>${options}</ol>`,
    ...(message.standing ? [`<p>${escapeHtml(message.standing)}</p>`] : []),
    `<p>${escapeHtml(expiryLine(message.expiresAt))}.</p>`,
    answer,
    '</body></html>',
  ].join('\n');
}
