// The types of any operation by its operationId, for code that names operations rather than types:
// `OperationBody<'sendMessage'>`, `OperationQuery<'listSessions'>`, `OperationResponse<'getSession', 200>`.
import type { OPERATIONS } from './index.ts';
import type { BodyOf, QueryOf, ResponseOf } from './operation.ts';

type Operations = typeof OPERATIONS;

export type OperationBody<Id extends keyof Operations> = BodyOf<Operations[Id]>;
export type OperationQuery<Id extends keyof Operations> = QueryOf<Operations[Id]>;
export type OperationResponse<Id extends keyof Operations, Status extends keyof Operations[Id]['responses']> = ResponseOf<
  Operations[Id],
  Status
>;
