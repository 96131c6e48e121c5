// The parser the metrics tests read /metrics with: it must refuse what Prometheus refuses, or a
// broken exposition would pass them.
import { describe, expect, test } from 'vitest';
import { parsePrometheusText } from '../helpers/metrics/prometheus-text.ts';

describe('the Prometheus text parser of the tests', () => {
  test('reads samples, labels (escapes included) and histogram series', () => {
    const parsed = parsePrometheusText(
      [
        '# HELP requests_total Requests.',
        '# TYPE requests_total counter',
        'requests_total{route="/a/:id",note="say \\"hi\\"\\\\n"} 3',
        '# TYPE latency_seconds histogram',
        'latency_seconds_bucket{le="0.5"} 1',
        'latency_seconds_bucket{le="+Inf"} 2',
        'latency_seconds_sum 1.25',
        'latency_seconds_count 2 1700000000000',
        '',
      ].join('\n'),
    );
    expect(parsed.value('requests_total', { route: '/a/:id', note: 'say "hi"\\n' })).toBe(3);
    expect(parsed.value('latency_seconds_bucket', { le: '+Inf' })).toBe(2);
    expect(parsed.value('latency_seconds_count')).toBe(2);
    expect(parsed.types.get('latency_seconds')).toBe('histogram');
  });

  test.each([
    ['a sample without a value', 'up'],
    ['a bad name', '1up 1'],
    ['an unterminated label', 'up{a="b 1'],
    ['a bad escape', 'up{a="\\t"} 1'],
    ['a value that is not a number', 'up one'],
    ['a TYPE after its samples', 'up 1\n# TYPE up gauge'],
    ['an unknown type', '# TYPE up meter'],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
