// Reading an answer out of a reply: names, numbers, notes, the longest option, and everything that
// must not count (quotes, the quoted original under a reply header, mentions, chatty text).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { answerLine, matchReply } from '../../api/inbound/reply-matching.ts';

const YES_NO = ['yes', 'no'];
const DEPLOY = ['approve', 'approve all', 'reject', 'wait until Monday'];

describe('names', () => {
  test.each([
    ['yes', 'yes', null],
    ['YES', 'yes', null],
    ['  Yes  ', 'yes', null],
    ['yes.', 'yes', null],
    ['yes!!', 'yes', null],
    ['No?', 'no', null],
    ['yes, but only today', 'yes', 'but only today'],
    ['yes - go ahead', 'yes', 'go ahead'],
    ['no: the numbers are wrong', 'no', 'the numbers are wrong'],
    ['No — not now.', 'no', 'not now.'],
    ['yes (after lunch)', 'yes', '(after lunch)'],
    ['yes 👍', 'yes', '👍'],
  ])('%j → %s, note %j', (text, choice, note) => {
    expect(matchReply(YES_NO, text)).toEqual({ choice, note });
  });

  test('an option followed by letters is another word, not the option', () => {
    expect(matchReply(YES_NO, 'yesterday was fine')).toBeUndefined();
    expect(matchReply(YES_NO, 'nope')).toBeUndefined();
    expect(matchReply(YES_NO, 'noé')).toBeUndefined();
  });

  test('the longest option that prefixes the line wins', () => {
    expect(matchReply(DEPLOY, 'approve all')).toEqual({ choice: 'approve all', note: null });
    expect(matchReply(DEPLOY, 'Approve all, every region')).toEqual({ choice: 'approve all', note: 'every region' });
    expect(matchReply(DEPLOY, 'approve, just this one')).toEqual({ choice: 'approve', note: 'just this one' });
    expect(matchReply(DEPLOY, 'approve allocation')).toEqual({ choice: 'approve', note: 'allocation' });
    expect(matchReply(DEPLOY, 'wait until monday: holidays')).toEqual({ choice: 'wait until Monday', note: 'holidays' });
  });

  test('the option is returned as written, whatever the case of the reply', () => {
    expect(matchReply(['Ship It', 'Hold'], 'ship it')).toEqual({ choice: 'Ship It', note: null });
  });

  test('options that differ only by trailing punctuation stay apart', () => {
    expect(matchReply(['ok', 'ok!'], 'ok!')).toEqual({ choice: 'ok!', note: null });
    expect(matchReply(['ok', 'ok!'], 'OK')).toEqual({ choice: 'ok', note: null });
    expect(matchReply(['ok', 'ok!'], 'ok.')).toEqual({ choice: 'ok', note: null });
  });

  test('a chatty line that names no option is no answer', () => {
    expect(matchReply(YES_NO, 'I think so')).toBeUndefined();
    expect(matchReply(YES_NO, 'maybe yes')).toBeUndefined();
    expect(matchReply(YES_NO, '')).toBeUndefined();
    expect(matchReply(YES_NO, '   \n\n  ')).toBeUndefined();
  });
});

describe('numbers', () => {
  test.each([
    ['1', 'yes', null],
    ['2', 'no', null],
    ['2.', 'no', null],
    ['2)', 'no', null],
    [' 1 ', 'yes', null],
    ['2. not this week', 'no', 'not this week'],
    ['2) not this week', 'no', 'not this week'],
    ['1 - fine', 'yes', 'fine'],
    ['1, fine', 'yes', 'fine'],
  ])('%j → %s, note %j', (text, choice, note) => {
    expect(matchReply(YES_NO, text)).toEqual({ choice, note });
  });

  test('numbers outside the options, and numbers that run into letters, are no answer', () => {
    expect(matchReply(YES_NO, '0')).toBeUndefined();
    expect(matchReply(YES_NO, '3')).toBeUndefined();
    expect(matchReply(YES_NO, '12')).toBeUndefined();
    expect(matchReply(YES_NO, '1000')).toBeUndefined();
    expect(matchReply(YES_NO, '2nd')).toBeUndefined();
  });

  test('an option that starts with a number is matched by name first', () => {
    expect(matchReply(['1 week', '2 weeks'], '2 weeks')).toEqual({ choice: '2 weeks', note: null });
    expect(matchReply(['1 week', '2 weeks'], '1')).toEqual({ choice: '1 week', note: null });
    expect(matchReply(['1 week', '2 weeks'], '2 please')).toEqual({ choice: '2 weeks', note: 'please' });
  });
});

describe('the line that counts', () => {
  test('the first non-empty line, with the rest of the reply ignored', () => {
    expect(matchReply(YES_NO, '\n\n  no\nyes\n')).toEqual({ choice: 'no', note: null });
    expect(matchReply(YES_NO, 'Sure thing\nyes')).toBeUndefined();
    expect(matchReply(YES_NO, 'yes\r\nand another thing')).toEqual({ choice: 'yes', note: null });
  });

  test('quoted lines are skipped', () => {
    expect(matchReply(YES_NO, '> Question from agent:\n> deploy?\n\nno - tests fail')).toEqual({ choice: 'no', note: 'tests fail' });
  });

  test('an email reply header ends the reply', () => {
    const quoted = 'On Mon, 1 Jan 2024 at 10:00, Agent <agent@example.com> wrote:\n> Options:\n> 1. yes\n';
    expect(matchReply(YES_NO, quoted)).toBeUndefined();
    expect(matchReply(YES_NO, `\n${quoted}yes`)).toBeUndefined();
    expect(matchReply(YES_NO, `yes, ship it\n\n${quoted}`)).toEqual({ choice: 'yes', note: 'ship it' });
  });

  test("Gmail's header wrapped over two lines ends the reply too", () => {
    const text = 'On Mon, Jan 1, 2024 at 10:00 AM Agent Service <\napprovals+apr_x.y@in.example.com> wrote:\n\nyes';
    expect(matchReply(YES_NO, text)).toBeUndefined();
  });

  test("Outlook's separators end the reply", () => {
    expect(matchReply(YES_NO, '-----Original Message-----\nyes')).toBeUndefined();
    expect(matchReply(YES_NO, '________________________________\nFrom: Agent\n\nyes')).toBeUndefined();
  });

  test('Slack mentions are dropped, and a line of only mentions is empty', () => {
    expect(matchReply(YES_NO, '<@U123ABC> yes please')).toEqual({ choice: 'yes', note: 'please' });
    expect(matchReply(YES_NO, '<@U123ABC|ann>\nno')).toEqual({ choice: 'no', note: null });
    expect(matchReply(YES_NO, 'no <@U42> can you check?')).toEqual({ choice: 'no', note: 'can you check?' });
  });

  test('answerLine says which line was read', () => {
    expect(answerLine('\n> quoted\n  the answer  \nmore')).toBe('the answer');
    expect(answerLine('> only quotes')).toBeUndefined();
  });

  // Reply text comes from strangers: a backtracking regex would take minutes on these, not milliseconds.
  test('long runs of punctuation or broken mentions are read in linear time', () => {
    expect(matchReply(YES_NO, `yes${'!'.repeat(200_000)}x`)).toEqual({ choice: 'yes', note: 'x' });
    expect(matchReply(YES_NO, `no ${'<@a|'.repeat(50_000)}`)?.choice).toBe('no');
    expect(matchReply(YES_NO, `${'.'.repeat(200_000)}x`)).toBeUndefined();
  });

  test('a note is cut to the longest note an answer may carry', () => {
    const match = matchReply(YES_NO, `yes ${'x'.repeat(5000)}`);
    expect(match?.note).toHaveLength(4000);
  });
});

// Options as parseApprovalRequest accepts them, in characters a person types on one line.
const optionText = fc
  .string({
    unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -'/&éü"),
    minLength: 1,
    maxLength: 30,
  })
  .map((text) => text.trim())
  .filter((text) => text !== '' && !/^\d+$/.test(text));
const optionLists = fc.uniqueArray(optionText, { minLength: 1, maxLength: 10, selector: (option) => option.toLowerCase() });

describe('properties', () => {
  test('every option name, in any case, and every option number matches its own option', () => {
    fc.assert(
      fc.property(optionLists, (options) => {
        options.forEach((option, index) => {
          expect(matchReply(options, option)).toEqual({ choice: option, note: null });
          expect(matchReply(options, option.toUpperCase())).toEqual({ choice: option, note: null });
          expect(matchReply(options, String(index + 1))).toEqual({ choice: option, note: null });
          expect(matchReply(options, `${index + 1}. with a note`)).toEqual({ choice: option, note: 'with a note' });
        });
      }),
    );
  });

  test('an option, a separator and a note give that option (or a longer one it starts) and the note', () => {
    fc.assert(
      fc.property(optionLists, fc.nat(), fc.constantFrom(' - ', ': ', ', ', ' '), (options, pick, separator) => {
        const option = options[pick % options.length]!;
        const match = matchReply(options, `${option}${separator}the note`);
        expect(match).toBeDefined();
        if (match!.choice === option) expect(match!.note).toBe('the note');
        else expect(`${option}${separator}the note`.toLowerCase().startsWith(match!.choice.toLowerCase())).toBe(true);
      }),
    );
  });

  test('quoted text never answers', () => {
    fc.assert(
      fc.property(optionLists, (options) => {
        for (const option of options) expect(matchReply(options, `> ${option}\n> 1`)).toBeUndefined();
      }),
    );
  });
});
