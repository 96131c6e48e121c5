import type { ToolResultAnswer, ToolResultBody } from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

export class ToolResults extends Resource {
  /**
   * Answers one call of a custom tool the client runs (`tool.call` with `executor: 'client'`):
   * `{toolCallId, output}` or `{toolCallId, error}`. The same answer again is applied once, so a
   * retry is safe; a call answered otherwise, timed out or aborted is a ConflictError.
   */
  submit(sessionId: string, body: ToolResultBody, options?: RequestOptions): Promise<ToolResultAnswer> {
    return this.transport.json({ method: 'POST', path: path`/session/${sessionId}/tool-result`, json: body, idempotent: true }, options);
  }
}
