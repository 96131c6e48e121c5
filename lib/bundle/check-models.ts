// providerId is checked in code, not by a schema enum: the list grows with the service while the
// published schema stays stable.
import { PROVIDER_IDS } from '../../contract/bundle-constants.ts';
import { childPointer } from './pointer.ts';
import { isRecord, type Json, type Report } from './report.ts';

export function checkModels(bundle: Json, report: Report): void {
  checkProvider(bundle.model, '/model', report);
  if (!isRecord(bundle.command)) return;
  for (const [name, command] of Object.entries(bundle.command)) {
    if (isRecord(command)) checkProvider(command.model, childPointer('/command', name, 'model'), report);
  }
}

function checkProvider(model: unknown, path: string, report: Report): void {
  if (!isRecord(model)) return;
  const at = `${path}/providerId`;
  const providerId = report.string(model.providerId, at);
  if (providerId !== undefined && !(PROVIDER_IDS as readonly string[]).includes(providerId)) {
    report.error(at, `unknown provider "${providerId}"; use one of ${PROVIDER_IDS.join(', ')}`);
  }
}
