import { describe, expect, it } from 'vitest';
import { CRON_MACROS, isValidCron, parseCron } from '../../lib/cron.ts';

const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

describe('parseCron', () => {
  it.each([
    ['* * * * *', '* * * * *'],
    ['0 9 * * 1-5', '0 9 * * 1-5'],
    ['*/15 * * * *', '*/15 * * * *'],
    ['0-30/10 8-18/2 1,15 * *', '0-30/10 8-18/2 1,15 * *'],
    ['0 0 1 JAN *', '0 0 1 1 *'],
    ['0 0 * jan-mar mon-fri', '0 0 * 1-3 1-5'],
    ['0 0 * * SUN', '0 0 * * 0'],
    ['0 0 * * 7', '0 0 * * 0'],
    ['0 0 * * 5-7', '0 0 * * 5,6,0'],
    ['59 23 31 12 6', '59 23 31 12 6'],
    ['  5   4  * * *  ', '5 4 * * *'],
    ['00 09 * * *', '0 9 * * *'],
    ['@hourly', '0 * * * *'],
    ['@daily', '0 0 * * *'],
    ['@weekly', '0 0 * * 0'],
    ['@monthly', '0 0 1 * *'],
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@midnight', '0 0 * * *'],
  ])('accepts %j as %j', (expression, canonical) => {
    const parsed = parseCron(expression);
    expect(parsed).toMatchObject({ ok: true, canonical });
    expect(isValidCron(expression)).toBe(true);
  });

  it('expands every field to its values', () => {
    const parsed = parseCron('*/20 0-4/2 1,10-12 FEB * ');
    expect(parsed.ok && parsed.fields).toEqual({
      minute: [0, 20, 40],
      hour: [0, 2, 4],
      dayOfMonth: [1, 10, 11, 12],
      month: [2],
      dayOfWeek: range(0, 6),
    });
  });

  it('reads day-of-week 7 as Sunday and does not repeat it', () => {
    const parsed = parseCron('0 0 * * 0,7');
    expect(parsed.ok && parsed.fields.dayOfWeek).toEqual([0]);
    const stepped = parseCron('0 0 * * */2');
    expect(stepped.ok && stepped.fields.dayOfWeek).toEqual([0, 2, 4, 6]);
  });

  it('has a five-field expansion for every macro', () => {
    for (const [macro, expansion] of Object.entries(CRON_MACROS)) {
      expect(parseCron(macro)).toMatchObject({ ok: true, canonical: expansion });
    }
  });

  it.each([
    ['', /expected 5 fields.*got 0 fields/],
    ['   ', /got 0 fields/],
    ['* * * *', /got 4 fields/],
    ['* * * * * *', /got 6 fields/],
    ['0 0 0 * * * *', /got 7 fields/],
    ['60 * * * *', /^minute field "60": 60 is out of range 0-59$/],
    ['* 24 * * *', /^hour field "24": 24 is out of range 0-23$/],
    ['* * 0 * *', /^day-of-month field "0": 0 is out of range 1-31$/],
    ['* * 32 * *', /day-of-month field "32"/],
    ['* * * 0 *', /^month field "0": 0 is out of range 1-12$/],
    ['* * * 13 *', /month field "13"/],
    ['* * * * 8', /^day-of-week field "8": 8 is out of range 0-7$/],
    ['5-1 * * * *', /range "5-1" runs backwards/],
    ['*/0 * * * *', /step "0" must be a whole number from 1 to 60/],
    ['*/61 * * * *', /step "61"/],
    ['* */25 * * *', /step "25" must be a whole number from 1 to 24/],
    ['*/x * * * *', /step "x"/],
    ['5/15 * * * *', /a step needs a range/],
    ['1-2-3 * * * *', /is not a value or a range/],
    ['*/5/2 * * * *', /more than one "\/"/],
    ['1,,2 * * * *', /empty item/],
    ['1, * * * *', /minute field "1,": a list has an empty item/],
    ['* * * FOO *', /"FOO" is not a number from 1 to 12, or a name JAN-DEC/],
    ['* * * * MONDAY', /"MONDAY" is not a number from 0 to 7, or a name SUN-SAT/],
    ['JAN * * * *', /minute field "JAN": "JAN" is not a number from 0 to 59$/],
    ['* * ? * *', /"\?" is not a number/],
    ['* * L * *', /"L" is not a number/],
    ['* * * * 1#2', /"1#2" is not a number/],
    ['-1 * * * *', /is not a number/],
    ['1.5 * * * *', /"1.5" is not a number/],
    ['@every 5m', /unknown macro "@every 5m"/],
    ['@reboot', /unknown macro "@reboot"/],
    ['@DAILY', /unknown macro "@DAILY"/],
    ['@daily *', /unknown macro/],
  ])('rejects %j', (expression, message) => {
    const parsed = parseCron(expression);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
    expect(isValidCron(expression)).toBe(false);
  });
});
