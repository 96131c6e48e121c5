// The keys of the places a user's model steps, tool calls and compactions take among its
// RUNNING_TURNS_PER_USER (store/step-slots.ts). Each starts with its session's id, so a turn that ends
// forgets its session's waiters by that prefix (forgetSessionStepWaiters); the activity that takes the
// place and the workflow that waits for it name it alike, so a freed place wakes the very call it names.

export const stepPlaceKey = (sessionId: string, messageId: string): string => `${sessionId}:${messageId}`;

/** `messageId`: the assistant message whose step made the call. */
export const toolPlaceKey = (sessionId: string, messageId: string, toolCallId: string): string => `${sessionId}:${messageId}:${toolCallId}`;

export const compactionPlaceKey = (sessionId: string, summaryMessageId: string): string => `${sessionId}:${summaryMessageId}`;
