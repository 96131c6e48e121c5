// @agent-service/sdk: the TypeScript client of the agent hosting service.
export { Client, type ClientOptions } from './client.ts';
export * from './errors.ts';
export type { RequestOptions, FetchLike } from './transport.ts';
export { PagedList, type Page } from './pagination.ts';
export { TurnStream, type TurnIds, type TurnEnd } from './turn-stream.ts';
export { TextAccumulator } from './text-accumulator.ts';
export { parseServerSentEvents, type ServerSentEvent } from './sse.ts';
export { turnEventFilter, isTurnEnd } from '../../contract/turn-events.ts';
export type { EventsOptions, EventsFunction } from './resources/events.ts';
export { ApprovalHandle, type ApprovalOutcome, type WaitOptions } from './resources/approvals.ts';
export type { BundleInput, CommandAccepted } from './resources/agents.ts';
export type { EvalCostEstimate, EvalProgress, EvalWaitOptions } from './resources/evals.ts';
export { DeviceTokenError, type DeviceTokenErrorCode } from './resources/device.ts';
export type { MessageInput, SendOptions } from './resources/sessions.ts';
export type { UploadSource } from './upload-source.ts';
export type { ToolHandlers, ToolCall, ToolRunOptions, ToolRunResult } from './tool-runner.ts';
export * from './webhooks.ts';
export type * from './contract.ts';
