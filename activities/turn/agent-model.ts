// The language model a step (or a compaction) calls: the provider's credentials from the secrets the
// agent was granted (or the operator's environment), and the values to mask in any error it surfaces.
import type { LanguageModel } from 'ai';
import type { Bundle, ModelRef } from '../../contract/bundle.ts';
import type { ModelOverride } from '../../core/turn-types.ts';
import type { Config } from '../../lib/config.ts';
import type { Db } from '../../store/db.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { FAILURE, nonRetryable } from '../../lib/workflow-safe/failures.ts';
import { readSecrets } from '../../store/secrets.ts';
import { credentialSecretNames, languageModel, providerCredentials } from '../model/providers.ts';
import { modelAnswerLimits } from '../model/answer-limits.ts';
import { callCredentials, type CallCredentials } from '../model/credential-scope.ts';

export interface AgentModel {
  model: LanguageModel;
  /** Masked wherever they might surface in an error message the user reads. */
  inUse: string[];
  /**
   * The base URL is the user's own (a granted `<PROVIDER>_BASE_URL` secret): what its server says is not
   * believed for other users (a context window it names, say).
   */
  ownBaseUrl: boolean;
  /** The operator's credentials or the user's own (activities/model/credential-scope.ts). */
  credentials: CallCredentials;
}

/** The model a turn runs: the one chosen for the turn (its provider the agent's unless named), else the agent's. */
export function modelRefOf(bundle: Bundle, override: ModelOverride | undefined): ModelRef {
  return override ? { providerId: override.providerId || bundle.model.providerId, modelId: override.modelId } : bundle.model;
}

/** A model that cannot be configured (no key, a bad base URL) fails the call for good: no retry fixes it. */
export async function agentModel(
  deps: { db: Db; masterKeys: readonly MasterKey[]; config: Config },
  bundle: Bundle,
  userId: string,
  ref: ModelRef,
): Promise<AgentModel> {
  try {
    const granted = credentialSecretNames(ref.providerId).filter((name) => bundle.secretGrants.includes(name));
    const secrets = await readSecrets(deps.db, deps.masterKeys, userId, granted);
    const credentials = providerCredentials(ref.providerId, secrets, deps.config);
    const inUse = [...secrets.values(), ...(credentials.apiKey ? [credentials.apiKey] : [])];
    const model = languageModel(ref, credentials, modelAnswerLimits(deps.config.limits));
    return {
      model,
      inUse,
      ownBaseUrl: credentials.baseUrlFromSecret === true,
      credentials: callCredentials(ref.providerId, credentials, deps.config),
    };
  } catch (error) {
    throw nonRetryable(FAILURE.modelConfiguration, (error as Error).message);
  }
}
