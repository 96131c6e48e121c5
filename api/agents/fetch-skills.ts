// Skills given by URL are fetched at deploy, once, and frozen into the revision (lib/skills.ts): the
// model then loads the same text for as long as the revision lives, and a redeploy fetches again.
// Each fetch goes through the outbound guard (no private addresses unless allowed, no redirects), with
// a deadline and a size limit, and must answer a text type; any failure fails the deploy with the
// skill's path, so an agent never runs with a skill it cannot load.
import type { Bundle } from '../../contract/bundle.ts';
import type { FieldError } from '../../lib/workflow-safe/errors.ts';
import { createOutboundClient, outboundErrorText, type OutboundClient } from '../../lib/outbound.ts';
import { skillRefs } from '../../lib/skills.ts';

export interface SkillFetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

/** Fetched at once; a bundle may list up to 100 skills. */
const CONCURRENT_FETCHES = 4;

/** Text types a skill may be served as (servers say text/plain, text/markdown, or nothing useful). */
const TEXT_TYPE = /^(text\/|application\/(markdown|x-markdown|json|yaml|x-yaml)\b)/i;

export type FetchedSkills = { ok: true; texts: Record<string, string> } | { ok: false; errors: FieldError[] };

export function skillFetcher(options: { allowCidrs: readonly string[]; limits: SkillFetchLimits }) {
  const outbound: OutboundClient = createOutboundClient({ allowCidrs: options.allowCidrs });
  const { limits } = options;

  async function fetchOne(url: string): Promise<{ text: string } | { error: string }> {
    let response;
    try {
      // One byte over the limit tells a text that is too long from one that just fits.
      response = await outbound.request(url, { timeoutMs: limits.timeoutMs, maxBodyBytes: limits.maxBytes + 1 });
    } catch (error) {
      return { error: `could not be fetched: ${outboundErrorText(error)}` };
    }
    if (response.status < 200 || response.status > 299) return { error: `could not be fetched: the server answered ${response.status}` };
    const type = String(response.headers['content-type'] ?? '');
    if (type && !TEXT_TYPE.test(type)) return { error: `is ${type.split(';')[0]}, not text` };
    if (Buffer.byteLength(response.bodySnippet, 'utf8') > limits.maxBytes) return { error: `is over ${limits.maxBytes} bytes` };
    return { text: response.bodySnippet };
  }

  /** The texts of the bundle's URL skills, by skill index, or an error per skill that failed. */
  return async function fetchSkills(bundle: Pick<Bundle, 'skills'>): Promise<FetchedSkills> {
    const wanted = skillRefs(bundle.skills).loadable.flatMap((ref) => (ref.source.kind === 'url' ? [{ ...ref, url: ref.source.url }] : []));
    const texts: Record<string, string> = {};
    const errors: FieldError[] = [];
    let next = 0;
    const worker = async () => {
      while (next < wanted.length) {
        const { index, url } = wanted[next++]!;
        const result = await fetchOne(url);
        const path = typeof bundle.skills[index] === 'string' ? `/skills/${index}` : `/skills/${index}/url`;
        if ('text' in result) texts[String(index)] = result.text;
        else errors.push({ path, message: `${url} ${result.error}` });
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_FETCHES, wanted.length) }, worker));
    errors.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
    return errors.length > 0 ? { ok: false, errors } : { ok: true, texts };
  };
}
