// Reads a process's /metrics and parses it as Prometheus would.
import { parsePrometheusText, type Exposition } from './prometheus-text.ts';

export async function scrape(url: string): Promise<Exposition & { text: string }> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain') || !type.includes('version=0.0.4'))
    throw new Error(`${url} is not the Prometheus text format: ${type}`);
  const text = await response.text();
  return { ...parsePrometheusText(text), text };
}
