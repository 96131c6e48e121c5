// The language model a step (or a compaction) calls: the provider's credentials from the secrets the
// agent was granted (or the operator's environment), and the values to mask in any error it surfaces.
import type { LanguageModel } from 'ai';
import type { Bundle, ModelRef } from '../../contract/bundle.ts';
import type { Config } from '../../lib/config.ts';
import type { Db } from '../../store/db.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { FAILURE, nonRetryable } from '../../lib/failures.ts';
import { readSecrets } from '../../store/secrets.ts';
import { credentialSecretNames, languageModel, providerCredentials } from '../model/providers.ts';
import { modelAnswerLimits } from '../model/answer-limits.ts';

export interface AgentModel {
  model: LanguageModel;
  /** Masked wherever they might surface in an error message the user reads. */
  inUse: string[];
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
    return { model: languageModel(ref, credentials, modelAnswerLimits(deps.config.limits)), inUse };
  } catch (error) {
    throw nonRetryable(FAILURE.modelConfiguration, (error as Error).message);
  }
}
