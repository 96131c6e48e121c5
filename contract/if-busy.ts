// What a send does while a turn runs in its session: one list, read by the API's query schema, the
// session workflow, the SDK and the CLI, so a mode added here reaches every one of them.
export const IF_BUSY = ['queue', 'reject', 'interrupt', 'steer'] as const;

/**
 * `queue` (the default) runs the message as the next turn; `reject` refuses it (409); `interrupt` aborts
 * the running turn first; `steer` joins the running turn, whose next model step reads it (with no turn
 * running, an ordinary send).
 */
export type IfBusy = (typeof IF_BUSY)[number];
