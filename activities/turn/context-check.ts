// Whether a step's request would be past the compaction threshold of its model's context window
// (COMPACTION_THRESHOLD_PERCENT), by the estimate of activities/model/token-estimate.ts.
import type { ToolSet } from 'ai';
import type { MessageView } from '../../contract/events.ts';
import type { ContextWindow } from '../model/context-windows.ts';
import { compactedView } from '../model/compaction-view.ts';
import { requestTokens } from '../model/token-estimate.ts';

/** The text of what every request of the agent sends besides the conversation: its system prompt and its tools. */
export function fixedRequestText(instructions: string | undefined, tools: ToolSet): string {
  const described = Object.entries(tools).map(([name, tool]) => `${name} ${tool.description ?? ''} ${schemaText(tool.inputSchema)}`);
  return [instructions ?? '', ...described].join('\n');
}

function schemaText(schema: unknown): string {
  const json = (schema as { jsonSchema?: unknown } | undefined)?.jsonSchema;
  try {
    return json === undefined || typeof json === 'function' || json instanceof Promise ? '' : (JSON.stringify(json) ?? '');
  } catch {
    return '';
  }
}

export interface ContextCheck {
  tokens: number;
  /** The window it was checked against. */
  windowTokens: number;
  over: boolean;
}

export function checkContext(
  history: readonly MessageView[],
  fixedText: string,
  window: ContextWindow,
  settings: { compactAtPercent: number; toolResultMaxChars: number },
): ContextCheck {
  const tokens = requestTokens({ view: compactedView(history), fixedText, toolResultMaxChars: settings.toolResultMaxChars });
  return { tokens, windowTokens: window.tokens, over: tokens > (window.tokens * settings.compactAtPercent) / 100 };
}
