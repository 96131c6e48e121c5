// How an approval reads: the exact plain text for both ways of answering, the HTML (escaped, one
// button per option), the email subject, and the cut a channel's length limit forces.
import { describe, expect, test } from 'vitest';
import type { ApprovalMessage } from '../../activities/channels/types.ts';
import { approvalLinks } from '../../lib/approval-token.ts';
import { approvalHtml, approvalSubject, approvalText, expiryLine, REPLY_INSTRUCTIONS } from '../../activities/channels/approval-message.ts';
import { escapeHtml } from '../../lib/escape-html.ts';

const TOKEN = 'apr_0123456789abcdefghjkmnpqrs.abcdefghjkmnpqrstvwx';

function message(overrides: Partial<ApprovalMessage> = {}): ApprovalMessage {
  const options = overrides.options ?? ['yes', 'no'];
  return {
    approvalId: 'apr_0123456789abcdefghjkmnpqrs',
    question: 'Deploy build 42 to production?',
    options,
    expiresAt: '2025-03-04T05:06:07.890Z',
    agentName: 'release-bot',
    answerVia: 'signed-url',
    links: approvalLinks('https://agents.example.com', TOKEN, options),
    token: TOKEN,
    publicBaseUrl: 'https://agents.example.com',
    ...overrides,
  };
}

const PAGE = `https://agents.example.com/approval/${TOKEN}/answer`;

describe('plain text', () => {
  test('signed links: who asks, the question, numbered options, the expiry in UTC and one link per option', () => {
    expect(approvalText(message())).toBe(
      [
        'Question from release-bot:',
        '',
        'Deploy build 42 to production?',
        '',
        'Options:\n1. yes\n2. no',
        '',
        'Expires 2025-03-04 05:06 UTC.',
        '',
        `Answer with one click:\n1. yes: ${PAGE}?choice=yes\n2. no: ${PAGE}?choice=no\nAll options on one page: ${PAGE}`,
      ].join('\n'),
    );
  });

  test('reply: the instructions instead of links', () => {
    const text = approvalText(message({ answerVia: 'reply', agentName: undefined }));
    expect(text).toBe(
      [
        'Question:',
        'Deploy build 42 to production?',
        'Options:\n1. yes\n2. no',
        'Expires 2025-03-04 05:06 UTC.',
        "Reply in this thread with the option's name or number; anything after it on the same line is kept as a note.",
      ].join('\n\n'),
    );
    expect(text).not.toContain('https://');
    expect(REPLY_INSTRUCTIONS).toBe(
      "Reply in this thread with the option's name or number; anything after it on the same line is kept as a note.",
    );
  });

  test('buttons: the links are left to the channel', () => {
    const text = approvalText(message(), { linksAs: 'buttons' });
    expect(text.endsWith('Expires 2025-03-04 05:06 UTC.\n\nAnswer with one of the buttons below.')).toBe(true);
    expect(text).not.toContain('https://');
  });

  test('the question is kept verbatim: markup, spacing and line breaks', () => {
    const question = '  *Ship* <b>it</b> & `now`?\n\n  - yes\r\n  - no  ';
    expect(approvalText(message({ question }))).toContain(`\n\n${question}\n\n`);
  });

  test('options are numbered from 1 in their order', () => {
    const text = approvalText(message({ options: ['send', 'revise', 'drop'] }));
    expect(text).toContain('Options:\n1. send\n2. revise\n3. drop\n');
    expect(text).toContain(`3. drop: ${PAGE}?choice=drop`);
  });

  test('a limit cuts only the question, which then points to the page', () => {
    const question = 'q'.repeat(5000);
    const text = approvalText(message({ question }), { linksAs: 'buttons', maxChars: 4096 });
    expect(text).toHaveLength(4096);
    expect(text).toContain(`q… (the full question: ${PAGE})\n\nOptions:\n1. yes\n2. no`);
    expect(text.endsWith('Answer with one of the buttons below.')).toBe(true);
    expect(approvalText(message(), { maxChars: 4096 })).toBe(approvalText(message()));
  });
});

describe('HTML', () => {
  test('escapes every value and gives one link per option', () => {
    const html = approvalHtml(
      message({ question: 'Pay <script>alert(1)</script> & "more"?\nLine two', options: ['yes & go', "no, <don't>"], agentName: 'a<b>' }),
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('Pay &#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;more&#34;?<br>\nLine two');
    expect(html).toContain('<strong>Question from a&#60;b&#62;:</strong>');
    expect(html).toContain('<li>yes &#38; go</li><li>no, &#60;don&#39;t&#62;</li>');
    const links = [...html.matchAll(/<a href="([^"]*)" style="[^"]*">([^<]*)<\/a>/g)].map((match) => [match[1], match[2]]);
    expect(links).toEqual([
      [`${PAGE}?choice=yes%20%26%20go`, 'yes &#38; go'],
      [`${PAGE}?choice=no%2C%20%3Cdon't%3E`.replace("'", '&#39;'), 'no, &#60;don&#39;t&#62;'],
    ]);
    expect(html).toContain(`<a href="${PAGE}">All options on one page</a>`);
    expect(html).toContain('<p>Expires 2025-03-04 05:06 UTC.</p>');
  });

  test('reply: instructions, no links', () => {
    const html = approvalHtml(message({ answerVia: 'reply' }));
    expect(html).toContain(`<p>${escapeHtml(REPLY_INSTRUCTIONS)}</p>`);
    expect(html).not.toContain('<a ');
  });
});

describe('subject and expiry', () => {
  test('the subject names the agent and the first 60 characters of the question, on one line', () => {
    expect(approvalSubject(message())).toBe('Question from release-bot: Deploy build 42 to production?');
    const long = `Line one\nline two ${'x'.repeat(80)}`;
    expect(approvalSubject(message({ question: long, agentName: undefined }))).toBe(
      `Question: ${`Line one line two ${'x'.repeat(80)}`.slice(0, 60)}…`,
    );
  });

  test('expiry is shown in UTC to the minute', () => {
    expect(expiryLine('2025-12-31T23:59:59.999+01:00')).toBe('Expires 2025-12-31 22:59 UTC');
    expect(expiryLine('not a date')).toBe('Expires not a date');
  });
});
