// What an eval case keeps of a turn, the candidate's or the recorded baseline's.

export interface CaseToolCall {
  name: string;
  input: unknown;
  /** A replaying case's call answered with the recorded result: the tool did not run. */
  replayed?: boolean;
  /** A replaying case's call no recorded call matched. */
  unmatched?: boolean;
}

export interface Transcript {
  reply: string;
  json?: unknown;
  toolCalls: CaseToolCall[];
}
