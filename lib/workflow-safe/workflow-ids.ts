// Every workflow id and schedule id the service uses, in one place. An id says what the workflow is
// for and makes its start idempotent: the same session, approval or delivery always has the same
// workflow, so a retried start joins the one already running instead of starting a second. Imported
// by workflows (child starts), activities and the API; changing a format strands runs in flight.

/** The one workflow per session that orders its turns. */
export function sessionWorkflowId(sessionId: string): string {
  return `session:${sessionId}`;
}

/** One turn of a session: a child of the session workflow or of a workflow run's agent node. */
export function turnWorkflowId(sessionId: string, turnId: string): string {
  return `turn:${sessionId}:${turnId}`;
}

export function approvalWorkflowId(approvalId: string): string {
  return `approval:${approvalId}`;
}

/** A note in an approval's chat threads; `what` tells notes of one approval apart ('outcome', or a random id). */
export function approvalNoticeWorkflowId(approvalId: string, what: string): string {
  return `notice:${approvalId}:${what}`;
}

export function deliveryWorkflowId(deliveryId: string): string {
  return `delivery:${deliveryId}`;
}

/** The workflow that reconciles an agent's cron schedules with its current revision. */
export function schedulesWorkflowId(agentId: string): string {
  return `schedules:${agentId}`;
}

/** Deterministic: one schedule per cron trigger position of an agent, reconciled on every deploy. */
export function scheduleId(agentId: string, index: number): string {
  return `cron:${agentId}:${index}`;
}

/** The firings of a schedule: Temporal appends each nominal time, so every firing has an id of its own. */
export function scheduledFiringWorkflowId(scheduleId: string): string {
  return `trigger:${scheduleId}`;
}

/** A webhook firing, which opens the session it names. */
export function triggerRunWorkflowId(sessionId: string): string {
  return `trigger:${sessionId}`;
}

/** An eval run, and one of its cases. */
export function evalRunWorkflowId(runId: string): string {
  return `eval:${runId}`;
}

export function evalCaseWorkflowId(runId: string, position: number): string {
  return `eval:${runId}:${position}`;
}

/** One run of a workflow graph. */
export function graphRunWorkflowId(runId: string): string {
  return `run:${runId}`;
}

/**
 * A send's Update id on its session workflow: the same message sent again (a retry, a second API
 * process) is the same Update, which Temporal runs once and answers each caller with the same result.
 */
export function sendUpdateId(messageId: string): string {
  return `send:${messageId}`;
}
