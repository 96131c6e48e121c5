// Activities of the approval workflow: writing the record (with its session event), the answer and
// the expiry, and sending the question over one channel. Each write is one transaction guarded by
// the approval's status, so Temporal running one again changes nothing the first run did.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../store/db.ts';
import { inTransaction } from '../store/db.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import type { MasterKey } from '../lib/master-key.ts';
import type { Bundle } from '../lib/bundle/index.ts';
import { appendEvents } from '../store/events.ts';
import {
  closePendingDispatches,
  answerHandedOver,
  getApproval,
  getDispatches,
  markExpired,
  recordDispatchAttempt,
  type Approval,
} from '../store/approvals.ts';
import { ANSWERED_SIGNAL, type ApprovalAnswer, type ApprovalWorkflowInput } from '../lib/workflow-safe/approvals.ts';
import { approvalLinks, approvalToken } from '../lib/approval-token.ts';
import { serviceBaseUrl } from '../lib/urls.ts';
import { createOutboundClient, outboundErrorText } from '../lib/outbound.ts';
import { resolveChannelConfig } from '../store/secrets.ts';
import { channelProviders } from './channels/index.ts';
import { ChannelPermanentError } from './channels/types.ts';
import { FAILURE, nonRetryable } from '../lib/workflow-safe/failures.ts';
import { approvalsEnded } from '../lib/metrics/worker-metrics.ts';
import { setWaiting, storeApprovalAnswer, waitsInTurn } from '../store/approval-endings.ts';
import { approvalRequestOf, chooseApprovalChannels, recordApprovalRequest } from '../store/approval-requests.ts';
import { currentTraceParent, recordApprovalSpan, type ApprovalEnd } from '../lib/genai-spans.ts';
import { TOOL_APPROVAL_OPTIONS } from '../core/tool-policies.ts';
import { replayedApprovalAnswer } from './turn/eval-replay-approvals.ts';
import { insertPushDeliveries } from '../store/a2a-push.ts';
import { startTaskNotifications } from './turn/task-notifications.ts';
import { safeToRunLive } from './tools/safe-tools.ts';
import type { RevisionOf } from './turn/revision-cache.ts';
import { approvalWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { seatDispatchesOf, seatsOf, type SeatProvider } from '../store/approval-votes.ts';
import { standingText } from '../lib/workflow-safe/approval-quorum.ts';

/**
 * What the approval workflow learns from writing the record. No token and no link: a result is kept in
 * Temporal history, readable in the Web UI, and a link answers the approval. The sending activity
 * and the API (for keys with approvals:answer) derive them from the master key when they need them.
 */
export interface RecordedApproval {
  expiresAt: string;
  /** Channels it goes over (of the asking agent's revision, maybe narrowed by the request): one dispatch each. */
  channels: number;
  /** Their positions in `userChannels`, in declared order. Absent from records written before a request could narrow them: 0 to channels - 1. */
  positions?: number[];
  /** The agent's name, for messages and the Web UI. */
  agentName: string | null;
  /** Some channel has threads (Slack, Telegram) where a note about the outcome belongs. */
  threaded: boolean;
  /** Of an approval a team answers: each approver's addresses it is sent to (activities/approval-seat-dispatch.ts). */
  seatDispatches?: Array<{ position: number; provider: SeatProvider }>;
}

function isThreaded(provider: string): boolean {
  return Object.hasOwn(channelProviders, provider) && channelProviders[provider as keyof typeof channelProviders].notify !== undefined;
}

export interface ApprovalDeps {
  db: Db;
  logger: Logger;
  config: Config;
  masterKeys: readonly MasterKey[];
  bundleOf: (agentId: string, revision: number) => Promise<Bundle>;
  /** A revision with its tools: whether an eval may run one of them live (activities/tools/safe-tools.ts). */
  revisionOf: RevisionOf;
}

/** Every message and stack of an error and of its causes: what Temporal would keep of it. */
function failureText(error: unknown): string {
  let text = '';
  for (let current: unknown = error; current !== undefined && current !== null; current = (current as { cause?: unknown }).cause) {
    text += current instanceof Error ? `${current.message}\n${current.stack ?? ''}\n` : `${String(current)}\n`;
    if (!(current instanceof Error)) break;
  }
  return text;
}

/** An answer as stored, tagged so that the expiry's result can tell it from an expiry. */
export interface StoredAnswer {
  status: 'answered';
  answeredAt: string;
  choice: string;
  note: string | null;
}

function storedAnswer(approval: Approval): StoredAnswer {
  return { status: 'answered', answeredAt: approval.answeredAt!.toISOString(), choice: approval.choice!, note: approval.note };
}

/** Its span (lib/genai-spans.ts), under the trace where it was asked, once it ends. */
function traceEnd(approval: Approval, end: ApprovalEnd, captureContent: boolean): void {
  const serviceOptions =
    approval.source === 'tool' &&
    approval.options.length === TOOL_APPROVAL_OPTIONS.length &&
    approval.options.every((option, index) => option === TOOL_APPROVAL_OPTIONS[index]);
  recordApprovalSpan({ ...approval, approvalId: approval.id, serviceOptions }, end, captureContent);
}

export function approvalActivities(deps: ApprovalDeps) {
  const { db, config } = deps;

  /** An answer stored: counted, and its span recorded. */
  function observeAnswered(approval: Approval): void {
    approvalsEnded.inc({ outcome: 'answered' });
    const answer = storedAnswer(approval);
    traceEnd(
      approval,
      { status: 'answered', at: new Date(answer.answeredAt), via: approval.answeredVia, choice: answer.choice, note: answer.note },
      config.tracing.captureContent,
    );
  }
  const outbound = createOutboundClient({ allowCidrs: config.outbound.allowCidrs });

  /** The bundle whose `userChannels` (and the secrets they use) the approval's dispatches go over. */
  function channelsBundle(approval: Approval, agentId: string, revision: number): Promise<Bundle> {
    const from = approval.channelsFrom ?? { agentId, revision };
    return deps.bundleOf(from.agentId, from.revision);
  }

  return {
    /** Writes the approval, its pending dispatches and `approval.requested`; idempotent. */
    async recordApproval(input: ApprovalWorkflowInput & { createdAt: string; expiresAt: string }): Promise<RecordedApproval> {
      // An eval case replaying a recorded session answers with the recording's answer, over no channel.
      const replayed = await replayedApprovalAnswer(db, input, async (call) =>
        input.agentId !== undefined && input.revision !== undefined
          ? safeToRunLive(await deps.revisionOf(input.agentId, input.revision), call)
          : false,
      );
      const chosen = await chooseApprovalChannels(db, deps.bundleOf, input);
      if (replayed) chosen.channels = [];
      const { bundle } = chosen;
      // Written already when the API took the request (POST /approval): then this writes nothing.
      const { approval: recorded } = await recordApprovalRequest(
        db,
        approvalRequestOf(
          input,
          {
            createdAt: new Date(input.createdAt),
            expiresAt: new Date(input.expiresAt),
            // This activity runs under the asking turn's trace: the approval's span joins it when it ends.
            traceParent: currentTraceParent(),
          },
          chosen,
        ),
      );
      if (replayed) {
        // Stored as the API stores an answer, then handed to this approval's workflow by signal (buffered
        // until its next task); should the signal be lost, the API's sweep hands the stored answer over.
        const { approval } = await storeApprovalAnswer(db, { approvalId: input.approvalId, ...replayed, via: 'replay' }, true);
        // A signal that fails is not retried here (this activity would hold its workflow until it went): the
        // answer is stored pending, and the API's sweep hands it over.
        if (approval.status === 'answered')
          await Context.current()
            .client.workflow.getHandle(approvalWorkflowId(input.approvalId))
            .signal(ANSWERED_SIGNAL, { ...storedAnswer(approval), via: 'replay' })
            .catch((error: unknown) =>
              deps.logger.warn({ err: error, approvalId: input.approvalId }, 'replayed answer not signalled; the sweep hands it over'),
            );
      }
      // A turn's question: its A2A task waits on its user (or, for a sign-in, on their authorization).
      if (!replayed && input.sessionId && input.turnId) {
        // After the record (a retried activity adds nothing twice: one key per approval); no config, one read.
        const pushed = await insertPushDeliveries(db, {
          sessionId: input.sessionId,
          taskId: input.turnId,
          turnId: input.turnId,
          state: input.request.connect ? 'TASK_STATE_AUTH_REQUIRED' : 'TASK_STATE_INPUT_REQUIRED',
          text: input.request.question,
          changeKey: `asked:${input.approvalId}`,
        });
        await startTaskNotifications(deps, pushed);
      }
      // As written (by the API, or here): a team's approval may go to none of its user's channels.
      const channels = replayed ? [] : await getDispatches(db, input.approvalId);
      const seatDispatches = !replayed && recorded.team ? await seatDispatchesOf(db, input.approvalId) : [];
      return {
        expiresAt: input.expiresAt,
        channels: channels.length,
        positions: channels.map((channel) => channel.position),
        agentName: bundle?.name ?? null,
        threaded: channels.some((channel) => isThreaded(channel.provider)),
        ...(seatDispatches.length > 0 ? { seatDispatches: seatDispatches.map(({ position, provider }) => ({ position, provider })) } : {}),
      };
    },

    /** Records the first answer; a later call (a replay) returns the answer that is stored. */
    async recordAnswer(
      input: { approvalId: string } & ApprovalAnswer,
    ): Promise<{ answeredAt: string; choice: string; note: string | null }> {
      const { approval, changed } = await storeApprovalAnswer(db, input);
      if (approval.status !== 'answered') throw new Error(`Approval ${approval.id} is ${approval.status}; the answer was not recorded`);
      // Counted once: a rerun finds the answer stored and changes nothing.
      if (changed) observeAnswered(approval);
      const { answeredAt, choice, note } = storedAnswer(approval);
      return { answeredAt, choice, note };
    },

    /**
     * An answer the API stored and signalled (api/approvals/workflows.ts): its metric and span, in the
     * worker, which exports them; and the API's sweep stops handing it over. Once per answer: a retry
     * finds it handed over already.
     */
    async observeAnswer(input: { approvalId: string }): Promise<void> {
      const approval = await getApproval(db, input.approvalId);
      // Counted by the call that clears the pending mark: a retry finds it cleared and counts nothing.
      if (approval?.status === 'answered' && (await answerHandedOver(db, input.approvalId))) observeAnswered(approval);
    },

    /**
     * Records the expiry; a later call (a replay) returns the expiry that is stored. An answer already
     * stored (one an earlier version wrote without its workflow taking it) is returned instead: the
     * workflow takes it, since whoever answered was told it was taken.
     */
    async recordExpiry(input: { approvalId: string }): Promise<{ expiredAt: string } | StoredAnswer> {
      let expired = false;
      let ended: Approval | undefined;
      const expiry = await inTransaction(db, async (client): Promise<{ expiredAt: string } | StoredAnswer> => {
        const { approval, changed } = await markExpired(client, input.approvalId);
        expired = changed;
        ended = approval;
        if (changed && approval.sessionId !== null) {
          if (waitsInTurn(approval)) await setWaiting(client, approval, false);
          await appendEvents(client, approval.sessionId, [
            { type: 'approval.expired', data: { approvalId: approval.id, expiredAt: approval.expiredAt!.toISOString() } },
          ]);
        }
        if (approval.status === 'answered') return storedAnswer(approval);
        if (approval.status !== 'expired') throw new Error(`Approval ${approval.id} is ${approval.status}; it cannot expire`);
        return { expiredAt: approval.expiredAt!.toISOString() };
      });
      if (expired) {
        approvalsEnded.inc({ outcome: 'expired' });
        traceEnd(ended!, { status: 'expired', at: ended!.expiredAt! }, config.tracing.captureContent);
      }
      return expiry;
    },

    /** A channel given up on whose last attempt never reported (it timed out): failed, not pending. */
    async failDispatch(input: { approvalId: string; position: number }): Promise<void> {
      await closePendingDispatches(db, { ...input, status: 'failed', error: 'the last attempt did not finish in time' });
    },

    /** Once the approval is decided: channels not reached yet are skipped, not pending. */
    async skipUnsentDispatches(input: { approvalId: string }): Promise<void> {
      await closePendingDispatches(db, { ...input, status: 'skipped', error: 'not sent: the approval was decided first' });
    },

    /** Positions of the dispatches that were sent into a thread (Slack, Telegram): where notes go. */
    async threadedDispatches(input: { approvalId: string }): Promise<number[]> {
      const dispatches = await getDispatches(db, input.approvalId);
      return dispatches
        .filter((dispatch) => dispatch.status === 'sent' && dispatch.externalRef !== null && isThreaded(dispatch.provider))
        .map((dispatch) => dispatch.position);
    },

    /** A note in the thread of the question sent at `position`: the outcome, or why a reply was not taken. */
    async postApprovalNotice(input: { approvalId: string; position: number; text: string }): Promise<void> {
      const approval = await getApproval(db, input.approvalId);
      const dispatch = (await getDispatches(db, input.approvalId)).find((row) => row.position === input.position);
      if (!approval || approval.agentId === null || approval.revision === null || !dispatch?.externalRef) return;
      const bundle = await channelsBundle(approval, approval.agentId, approval.revision);
      const channel = bundle.userChannels[input.position];
      const notify = channel && channelProviders[channel.provider].notify;
      if (!channel || !notify) return;
      try {
        const resolved = await resolveChannelConfig(deps, { userId: approval.userId, grants: bundle.secretGrants, channel });
        await notify(resolved, dispatch.externalRef, input.text, { outbound, settings: config.channels });
      } catch (error) {
        if (error instanceof ChannelPermanentError) throw nonRetryable(FAILURE.channelPermanent, error.message);
        throw error;
      }
    },

    /**
     * Sends the question over the agent's channel at `position`. Every attempt is recorded; the last
     * one allowed (or a permanent failure) marks the dispatch failed, and the workflow moves on.
     * Secrets are opened here, so they never enter workflow history.
     */
    async dispatchApproval(input: { approvalId: string; position: number; maxAttempts: number }): Promise<{ sent: boolean }> {
      const attempt = Context.current().info.attempt;
      const approval = await getApproval(db, input.approvalId);
      if (!approval || approval.agentId === null || approval.revision === null)
        throw ApplicationFailure.nonRetryable('The approval has no agent');
      if (approval.status !== 'unanswered') {
        await closePendingDispatches(db, {
          approvalId: approval.id,
          status: 'skipped',
          error: `not sent: the approval was ${approval.status} first`,
          position: input.position,
        });
        return { sent: false };
      }
      const bundle = await channelsBundle(approval, approval.agentId, approval.revision);
      const channel = bundle.userChannels[input.position];
      if (!channel) throw ApplicationFailure.nonRetryable(`The agent has no channel ${input.position}`);
      const asking = approval.channelsFrom ? await deps.bundleOf(approval.agentId, approval.revision) : bundle;
      const token = approvalToken(deps.masterKeys[0]!, approval.id);
      try {
        const resolved = await resolveChannelConfig(deps, { userId: approval.userId, grants: bundle.secretGrants, channel });
        const { externalRef } = await channelProviders[channel.provider].send(
          resolved,
          {
            approvalId: approval.id,
            question: approval.question,
            options: approval.options,
            expiresAt: approval.expiresAt.toISOString(),
            agentName: asking.name,
            ...(approval.sessionId ? { sessionId: approval.sessionId } : {}),
            // A connect approval is answered by signing in, which a reply cannot do: its link is the way.
            // A reply here votes only as an approver whose chat address wrote it, never as the user
            // (api/inbound/team-reply.ts): a team's question on the user's channels is answered by links.
            answerVia: approval.connectServer || approval.team ? 'signed-url' : channel.answerVia,
            links: approvalLinks(serviceBaseUrl(config), token, approval.options),
            token,
            publicBaseUrl: serviceBaseUrl(config),
            ...(approval.team ? { standing: standingText(approval.team, approval.options, await seatsOf(db, approval.id)) } : {}),
          },
          { outbound, settings: config.channels },
        );
        await recordDispatchAttempt(db, { approvalId: approval.id, position: input.position, status: 'sent', externalRef });
        return { sent: true };
      } catch (error) {
        const permanent = error instanceof ChannelPermanentError || (error instanceof Error && error.name === 'ChannelSecretMissingError');
        // A provider's error may quote what it was sent. The message is stored in the dispatch (readable
        // with `read`) and, thrown, in Temporal history: neither may hold what answers the approval. Nor
        // may the dispatch show the address a socket error names (as a webhook delivery's log does not).
        const raw = outboundErrorText(error);
        const quotesToken = failureText(error).includes(token);
        const message = quotesToken ? raw.replaceAll(token, '[token]') : raw;
        const final = permanent || attempt >= input.maxAttempts;
        await recordDispatchAttempt(db, {
          approvalId: approval.id,
          position: input.position,
          status: final ? 'failed' : 'pending',
          error: message,
        });
        // The server's log keeps the whole text (an address helps an operator), the token still hidden.
        const logged = (error instanceof Error ? error.message : String(error)).replaceAll(token, '[token]');
        deps.logger.warn(
          { approvalId: approval.id, position: input.position, provider: channel.provider, attempt, err: logged },
          'channel dispatch failed',
        );
        if (permanent) throw nonRetryable(FAILURE.channelPermanent, message);
        // Not the error itself: its stack and causes would carry the token into history.
        if (quotesToken) throw ApplicationFailure.retryable(message, error instanceof Error ? error.name : 'Error');
        throw error;
      }
    },
  };
}
