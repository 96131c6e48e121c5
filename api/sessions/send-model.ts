// The model a send (or a regeneration) asks its turn to run instead of the agent's: only one the operator
// lets sends choose (SEND_MODELS), since it is the operator's key that pays for most models and a budget
// counts only what it can price (docs/sessions.md, Budgets). Unset, any model may be chosen.
import type { ModelOverride } from '../../core/turn-types.ts';
import { ValidationError } from '../../lib/workflow-safe/errors.ts';
import { getRevision } from '../../store/agents.ts';
import type { Session } from '../../store/sessions.ts';
import type { ApiDeps } from '../context.ts';

/** Throws a 400 naming the models a send may choose when `model` is not one of them (nor the agent's own). */
export async function checkSendModel(
  deps: Pick<ApiDeps, 'db' | 'config'>,
  session: Pick<Session, 'agentId' | 'revision'>,
  model: ModelOverride | undefined,
): Promise<void> {
  const allowed = deps.config.pricing.sendModels;
  if (!model || allowed === undefined) return;
  const own = (await getRevision(deps.db, session.agentId, session.revision))?.bundle.model;
  const ref = { providerId: model.providerId || own?.providerId || '', modelId: model.modelId };
  if (own && own.providerId === ref.providerId && own.modelId === ref.modelId) return;
  if (sendModelAllowed(allowed, ref)) return;
  const which = allowed.length > 0 ? `only these models: ${allowed.join(', ')}` : "none but the agent's own model";
  const message = `${ref.providerId}:${ref.modelId} is not a model a send may choose here; the operator allows ${which} (SEND_MODELS)`;
  throw new ValidationError(message, [{ path: '/model', message }]);
}

/**
 * Whether a send may choose `ref` for its turn: every model when the operator named none (unset), none
 * when the list is empty, else a listed `[providerId:]modelId` (a trailing `*` matches any rest).
 */
export function sendModelAllowed(allowed: readonly string[] | undefined, ref: { providerId: string; modelId: string }): boolean {
  if (allowed === undefined) return true;
  const full = `${ref.providerId}:${ref.modelId}`;
  return allowed.some((entry) => {
    if (!entry.endsWith('*')) return entry === full || entry === ref.modelId;
    const prefix = entry.slice(0, -1);
    return full.startsWith(prefix) || ref.modelId.startsWith(prefix);
  });
}
