// Cron expressions as bundles may write them. Temporal Schedules run them, but a bad expression must
// fail the deploy with a message that names the field, not surface later when schedules are
// reconciled. The parse also yields a canonical form (macros expanded, names turned into numbers,
// day-of-week 7 turned into 0) that any cron engine reads the same way.

export interface CronFields {
  minute: number[];
  hour: number[];
  dayOfMonth: number[];
  month: number[];
  /** 0 = Sunday ... 6 = Saturday (7 in the text is read as Sunday). */
  dayOfWeek: number[];
}

export type CronParse = { ok: true; fields: CronFields; canonical: string } | { ok: false; message: string };

/**
 * The macros accepted besides five fields. The interface names @hourly, @daily and @weekly; the other
 * classic ones are accepted too because every cron dialect users come from knows them. @every and
 * @reboot are not: the first is not cron, the second has no meaning for a hosted agent.
 */
export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface FieldSpec {
  key: keyof CronFields;
  label: string;
  min: number;
  max: number;
  /** Three-letter names; names[i] stands for min + i. */
  names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { key: 'minute', label: 'minute', min: 0, max: 59 },
  { key: 'hour', label: 'hour', min: 0, max: 23 },
  { key: 'dayOfMonth', label: 'day-of-month', min: 1, max: 31 },
  {
    key: 'month',
    label: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  },
  { key: 'dayOfWeek', label: 'day-of-week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

class CronSyntaxError extends Error {
  override name = 'CronSyntaxError';
}

export function parseCron(expression: string): CronParse {
  const text = expression.trim();
  if (text.startsWith('@')) {
    const expanded = CRON_MACROS[text];
    if (expanded === undefined) {
      return { ok: false, message: `unknown macro "${text}"; use one of ${Object.keys(CRON_MACROS).join(', ')} or five fields` };
    }
    return parseFields(expanded);
  }
  return parseFields(text);
}

export function isValidCron(expression: string): boolean {
  return parseCron(expression).ok;
}

function parseFields(text: string): CronParse {
  const parts = text === '' ? [] : text.split(/\s+/);
  if (parts.length !== FIELDS.length) {
    return {
      ok: false,
      message: `expected 5 fields (minute hour day-of-month month day-of-week) or a macro such as @daily, got ${parts.length} field${parts.length === 1 ? '' : 's'}`,
    };
  }
  const fields: Partial<CronFields> = {};
  const canonical: string[] = [];
  for (const [index, spec] of FIELDS.entries()) {
    try {
      const parsed = parseField(parts[index] ?? '', spec);
      fields[spec.key] = parsed.values;
      canonical.push(parsed.canonical);
    } catch (error) {
      if (!(error instanceof CronSyntaxError)) throw error;
      return { ok: false, message: `${spec.label} field "${parts[index] ?? ''}": ${error.message}` };
    }
  }
  return { ok: true, fields: fields as CronFields, canonical: canonical.join(' ') };
}

function parseField(text: string, spec: FieldSpec): { values: number[]; canonical: string } {
  const values = new Set<number>();
  const canonical: string[] = [];
  // '*' in day-of-week means Sunday to Saturday once; 7 is only an alias of Sunday.
  const starMax = spec.key === 'dayOfWeek' ? 6 : spec.max;
  for (const item of text.split(',')) {
    if (item === '') throw new CronSyntaxError('a list has an empty item');
    const slash = item.split('/');
    if (slash.length > 2) throw new CronSyntaxError(`"${item}" has more than one "/"`);
    const [base = '', stepText] = slash;
    let [from, to] = [spec.min, starMax];
    let baseCanonical = '*';
    if (base !== '*') {
      const dash = base.split('-');
      if (dash.length > 2) throw new CronSyntaxError(`"${base}" is not a value or a range a-b`);
      from = parseValue(dash[0] ?? '', spec);
      to = dash[1] === undefined ? from : parseValue(dash[1], spec);
      if (to < from) throw new CronSyntaxError(`range "${base}" runs backwards`);
      baseCanonical = dash[1] === undefined ? String(from) : `${from}-${to}`;
      // A step needs a range to step through; "5/15" means different things in different dialects.
      if (stepText !== undefined && dash[1] === undefined) {
        throw new CronSyntaxError(`a step needs a range: write "*/${stepText}" or "${base}-${starMax}/${stepText}"`);
      }
    }
    let step = 1;
    if (stepText !== undefined) {
      const span = starMax - spec.min + 1;
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1 || Number(stepText) > span) {
        throw new CronSyntaxError(`step "${stepText}" must be a whole number from 1 to ${span}`);
      }
      step = Number(stepText);
    }
    const itemValues: number[] = [];
    for (let value = from; value <= to; value += step) itemValues.push(spec.key === 'dayOfWeek' && value === 7 ? 0 : value);
    for (const value of itemValues) values.add(value);
    const itemCanonical = stepText === undefined ? baseCanonical : `${baseCanonical}/${step}`;
    // Sunday as 7 cannot stay in a range once it is written 0, so such an item is spelled out.
    canonical.push(to === 7 && spec.key === 'dayOfWeek' ? itemValues.join(',') : itemCanonical);
  }
  return { values: [...values].sort((a, b) => a - b), canonical: canonical.join(',') };
}

function parseValue(text: string, spec: FieldSpec): number {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value < spec.min || value > spec.max) {
      throw new CronSyntaxError(`${value} is out of range ${spec.min}-${spec.max}`);
    }
    return value;
  }
  const named = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return spec.min + named;
  const hint = spec.names ? `, or a name ${spec.names[0]}-${spec.names[spec.names.length - 1]}` : '';
  throw new CronSyntaxError(`"${text}" is not a number from ${spec.min} to ${spec.max}${hint}`);
}
