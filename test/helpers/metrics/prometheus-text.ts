// A parser of the Prometheus text exposition format (version 0.0.4), strict enough that a test fails
// on anything a Prometheus server would refuse: every line is a comment, a blank or a well-formed
// sample; label values are unescaped; a family's TYPE comes before its samples and at most once.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Metric family name -> its TYPE (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  /** The samples named `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** The one sample named `name` with exactly these labels (0 when there is none). */
  value(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  text.split('\n').forEach((line, index) => {
    const where = `line ${index + 1} ("${line}")`;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const [, keyword, name, ...rest] = line.split(' ');
      if (keyword === 'TYPE') {
        if (!name || !NAME.test(name) || !TYPES.has(rest.join(' '))) throw new Error(`bad TYPE at ${where}`);
        if (types.has(name)) throw new Error(`second TYPE for ${name} at ${where}`);
        if (samples.some((sample) => familyOf(sample.name, types) === name)) throw new Error(`TYPE after samples of ${name} at ${where}`);
        types.set(name, rest.join(' '));
      } else if (keyword === 'HELP' && (!name || !NAME.test(name))) {
        throw new Error(`bad HELP at ${where}`);
      }
      return;
    }
    samples.push(parseSample(line, where));
  });
  const matches = (sample: Sample, labels: Record<string, string>) =>
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value);
  return {
    samples,
    types,
    find: (name, labels = {}) => samples.filter((sample) => sample.name === name && matches(sample, labels)),
    value(name, labels = {}) {
      const exact = samples.filter(
        (sample) => sample.name === name && matches(sample, labels) && Object.keys(sample.labels).length === Object.keys(labels).length,
      );
      if (exact.length > 1) throw new Error(`${exact.length} samples of ${name} ${JSON.stringify(labels)}`);
      return exact[0]?.value ?? 0;
    },
  };
}

/** A histogram's `_bucket`, `_sum` and `_count` samples belong to the family without the suffix. */
function familyOf(name: string, types: Map<string, string>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix) && types.has(name.slice(0, -suffix.length))) return name.slice(0, -suffix.length);
  }
  return name;
}

function parseSample(line: string, where: string): Sample {
  const nameEnd = line.search(/[{ ]/);
  if (nameEnd <= 0) throw new Error(`no sample at ${where}`);
  const name = line.slice(0, nameEnd);
  if (!NAME.test(name)) throw new Error(`bad metric name at ${where}`);
  const labels: Record<string, string> = {};
  let rest = line.slice(nameEnd);
  if (rest.startsWith('{')) {
    let at = 1;
    while (rest[at] !== '}') {
      const eq = rest.indexOf('=', at);
      const labelName = rest.slice(at, eq);
      if (eq < 0 || !LABEL_NAME.test(labelName) || rest[eq + 1] !== '"') throw new Error(`bad label at ${where}`);
      let value = '';
      let i = eq + 2;
      for (; i < rest.length && rest[i] !== '"'; i++) {
        if (rest[i] === '\\') {
          const escaped = rest[++i];
          if (escaped === 'n') value += '\n';
          else if (escaped === '\\' || escaped === '"') value += escaped;
          else throw new Error(`bad escape in label value at ${where}`);
        } else value += rest[i];
      }
      if (i >= rest.length) throw new Error(`unterminated label value at ${where}`);
      if (labelName in labels) throw new Error(`label ${labelName} twice at ${where}`);
      labels[labelName] = value;
      at = i + 1;
      if (rest[at] === ',') at++;
      else if (rest[at] !== '}') throw new Error(`bad label list at ${where}`);
    }
    rest = rest.slice(at + 1);
  }
  const fields = rest.trim().split(/\s+/);
  if (fields.length < 1 || fields.length > 2 || (fields[1] !== undefined && !/^-?\d+$/.test(fields[1]))) {
    throw new Error(`bad value or timestamp at ${where}`);
  }
  const raw = fields[0]!;
  const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
  if (Number.isNaN(value) && raw !== 'NaN') throw new Error(`bad value at ${where}`);
  if (!/^\s/.test(rest)) throw new Error(`no space before the value at ${where}`);
  return { name, labels, value };
}
