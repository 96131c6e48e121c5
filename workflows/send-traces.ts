// Each turn in the trace of the request that sent its message. A session workflow outlives its sends:
// later messages reach it as signals and Updates, each handled in its request's trace (the tracing
// interceptors' HandleSignal / HandleUpdate spans), while the turns run in the workflow's main loop,
// whose trace is the first send's. So the handler keeps the trace it ran in for the turn it queued,
// and the loop runs that turn in it: the turn's activities and children, and the GenAI spans under
// them (lib/genai-spans.ts), then descend from the request that sent the message.
//
// While tracing is off no context manager is registered in the workflow sandbox: `active()` is the
// empty root context and `with` only calls the function. Either way no command changes: trace context
// travels in headers, which a replay does not compare.
import { context, type Context } from '@opentelemetry/api';

export class SendTraces {
  private readonly byTurn = new Map<string, Context>();

  /** In a send's handler: the trace it runs in belongs to the turn `turnId` it queued. */
  remember(turnId: string, sentIn: Context): void {
    this.byTurn.set(turnId, sentIn);
  }

  /** The trace of the running handler, to hand to remember() once its turn is known. */
  static active(): Context {
    return context.active();
  }

  /** Runs the turn in its send's trace; a turn queued before this run (continue-as-new) stays in the run's. */
  run<T>(turnId: string, turn: () => Promise<T>): Promise<T> {
    const sentIn = this.byTurn.get(turnId);
    this.byTurn.delete(turnId);
    return sentIn ? context.with(sentIn, turn) : turn();
  }
}
