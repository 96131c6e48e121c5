// Secrets: a grant of a secret that does not exist fails the deploy under strictSecrets and warns
// otherwise; a channel may only reference secrets the agent is granted, since the
// channel runs with the agent's grants. (A channel credential written in clear text is refused by
// check-channels.ts.)
import { SECRET_KEY_PATTERN, SECRET_REFERENCE } from '../../contract/bundle-constants.ts';
import { childPointer } from './pointer.ts';
import { isRecord, type Json, type Report } from './report.ts';

export function checkSecrets(bundle: Json, report: Report, existingSecretKeys: ReadonlySet<string>): void {
  if (!Array.isArray(bundle.secretGrants)) return;
  const strict = bundle.strictSecrets === true;
  const granted = new Set<string>();
  bundle.secretGrants.forEach((value: unknown, index) => {
    const path = `/secretGrants/${index}`;
    const key = report.string(value, path);
    if (key === undefined) return;
    granted.add(key);
    if (existingSecretKeys.has(key)) return;
    if (strict) report.error(path, `secret "${key}" does not exist; set it first (PUT /secret/${key}) or turn strictSecrets off`);
    else report.warn(path, `secret "${key}" does not exist yet; the agent cannot read it until it is set`);
  });
  checkChannelReferences(bundle.userChannels, granted, report);
}

function checkChannelReferences(channels: unknown, granted: ReadonlySet<string>, report: Report): void {
  if (!Array.isArray(channels)) return;
  channels.forEach((channel: unknown, index) => {
    if (!isRecord(channel) || !isRecord(channel.config)) return;
    for (const [field, raw] of Object.entries(channel.config)) {
      const path = childPointer(`/userChannels/${index}/config`, field);
      const value = report.string(raw, path);
      if (value === undefined) continue;
      const references = [...value.matchAll(SECRET_REFERENCE)];
      const malformed = references.filter((match) => !SECRET_KEY_PATTERN.test(match[1] ?? ''));
      const ungranted = references.map((match) => match[1] ?? '').filter((key) => SECRET_KEY_PATTERN.test(key) && !granted.has(key));
      if (malformed.length > 0) report.error(path, `malformed secret reference ${malformed.map((match) => match[0]).join(', ')}`);
      if (ungranted.length > 0) {
        const keys = [...new Set(ungranted)].map((key) => `"${key}"`).join(', ');
        report.error(
          path,
          `references ${keys}, not in secretGrants; grant ${ungranted.length > 1 ? 'them' : 'it'} to use ${ungranted.length > 1 ? 'them' : 'it'} here`,
        );
      }
    }
  });
}
