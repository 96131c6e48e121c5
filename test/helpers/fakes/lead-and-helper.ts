// The fake model's script for the simplest agent call: a lead whose first step calls its helper
// (`agent_<helper>`, call id `call_help`) and whose step after the result says `leadText`; the helper
// answers `helper` (a script: text, or a question with the ask_my_user tool, answered then with `helperAfter`).
import { messageText, type FakeRequest, type FakeScript } from './fake-model.ts';

export interface LeadAndHelper {
  helperName: string;
  helper?: FakeScript;
  /** The helper's step after its own tool's result (its question answered). */
  helperAfter?: FakeScript;
  leadText?: string;
}

/** The instructions each side is deployed with: the script tells them apart by these. */
export const LEAD_INSTRUCTIONS = 'ROLE lead';
export const HELPER_INSTRUCTIONS = 'ROLE helper';

/** A helper that asks its user "Red or blue?" (ask_my_user), then answers "Blue it is." once answered. */
export const HELPER_ASKS: Pick<LeadAndHelper, 'helper' | 'helperAfter'> = {
  helper: { toolCalls: [{ id: 'call_ask', name: 'ask_my_user', arguments: { question: 'Red or blue?', options: ['red', 'blue'] } }] },
  helperAfter: { text: 'Blue it is.' },
};

export function leadAndHelper(script: LeadAndHelper): (request: FakeRequest) => FakeScript {
  return (request) => {
    const system = messageText(request.body.messages.find((message) => message.role === 'system')) ?? '';
    const afterTool = request.body.messages.at(-1)?.role === 'tool';
    if (system.includes(HELPER_INSTRUCTIONS))
      return afterTool ? (script.helperAfter ?? { text: 'Helped.' }) : (script.helper ?? { text: 'Helped.' });
    return afterTool
      ? { text: script.leadText ?? 'All done.' }
      : { toolCalls: [{ id: 'call_help', name: `agent_${script.helperName}`, arguments: { message: 'Help me' } }] };
  };
}
