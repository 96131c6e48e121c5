// Triggers: cron expressions and time zones that Temporal Schedules will accept, webhook suffixes
// that do not share a URL, and workflow names that exist.
import { parseCron } from '../cron.ts';
import { isRecord, type Json, type Report } from './report.ts';

export function checkTriggers(bundle: Json, report: Report): void {
  if (!Array.isArray(bundle.triggers)) return;
  const workflows = isRecord(bundle.workflows) ? bundle.workflows : undefined;
  const suffixes = new Map<string, number>();
  bundle.triggers.forEach((trigger: unknown, index) => {
    if (!isRecord(trigger)) return;
    const base = `/triggers/${index}`;
    if (trigger.kind === 'cron') {
      const expression = report.string(trigger.expression, `${base}/expression`);
      const parsed = expression === undefined ? undefined : parseCron(expression);
      if (parsed && !parsed.ok) report.error(`${base}/expression`, parsed.message);
      const timezone = report.string(trigger.timezone, `${base}/timezone`);
      const problem = timezone === undefined ? undefined : timeZoneProblem(timezone);
      if (problem !== undefined) report.error(`${base}/timezone`, problem);
    }
    if (trigger.kind === 'webhook') {
      const suffix = report.string(trigger.suffix, `${base}/suffix`);
      const first = suffix === undefined ? undefined : suffixes.get(suffix);
      if (first !== undefined) report.error(`${base}/suffix`, `duplicates the suffix of /triggers/${first}: both would have the same URL`);
      else if (suffix !== undefined) suffixes.set(suffix, index);
    }
    const workflow = report.string(trigger.workflow, `${base}/workflow`);
    if (workflow !== undefined && workflows && !Object.hasOwn(workflows, workflow)) {
      const known = Object.keys(workflows);
      report.error(`${base}/workflow`, `"${workflow}" is not a workflow of this bundle${known.length ? ` (${known.join(', ')})` : ''}`);
    }
  });
}

/**
 * Intl knows the IANA database but ignores case; Temporal's server (Go) does not. So a name Intl
 * knows must also be spelled as Intl spells it, unless it is an alias Intl rewrites (US/Eastern).
 */
function timeZoneProblem(name: string): string | undefined {
  let resolved: string | undefined;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    resolved = undefined;
  }
  const generic = `"${name}" is not an IANA time zone such as Europe/Paris or UTC`;
  if (resolved === undefined || /^[+-]/.test(name)) return generic;
  if (name === resolved) return undefined;
  if (name.toLowerCase() === resolved.toLowerCase()) return `"${name}" is spelled "${resolved}"`;
  return name.split('/').every((segment) => /^[A-Z]/.test(segment)) ? undefined : generic;
}
