// Asking one approver of an approval a team answers, at one of their addresses (the directory's, when the
// approval was asked): their own signed links, which vote as them. The message goes over the asking
// agent's channel of the same kind, with its credentials and the approver's address in place of the
// channel's own: an email from its SMTP account to their address, a Slack message from its bot to their
// user (a direct message), a Telegram message from its bot to their chat. A webhook address needs no
// channel: the request is POSTed there, signed with the agent's webhook channel's secret when it has one.
// Every dispatch is answered by the approver's signed links. In a chat (Slack, Telegram) whose channel
// can authenticate replies, a reply to the message votes as them too: the message's name is recorded, and
// the inbound route counts a reply there only from the person it was sent to (api/inbound/team-reply.ts).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../store/db.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import type { MasterKey } from '../lib/master-key.ts';
import type { Bundle } from '../lib/bundle/index.ts';
import { getApproval } from '../store/approvals.ts';
import { approvalChannels } from '../store/approval-requests.ts';
import { ME } from '../contract/approvals.ts';
import {
  closeSeatDispatches,
  escalate,
  lastSeatMessages,
  type Escalated,
  type OwnChannel,
  recordSeatDispatch,
  seatDispatchesOf,
  seatsOf,
  type SeatProvider,
} from '../store/approval-votes.ts';
import { resolveChannelConfig } from '../store/secrets.ts';
import { approvalLinks, seatToken } from '../lib/approval-token.ts';
import { serviceBaseUrl } from '../lib/urls.ts';
import { createOutboundClient, outboundErrorText } from '../lib/outbound.ts';
import { channelProviders } from './channels/index.ts';
import { ChannelPermanentError, type ResolvedChannelConfig } from './channels/types.ts';
import { FAILURE, nonRetryable } from '../lib/workflow-safe/failures.ts';
import { standingText } from '../lib/workflow-safe/approval-quorum.ts';

export interface SeatDispatchDeps {
  db: Db;
  logger: Logger;
  config: Config;
  masterKeys: readonly MasterKey[];
  bundleOf: (agentId: string, revision: number) => Promise<Bundle>;
}

/** The setting of a channel's config that authenticates its inbound replies: without it a reply cannot count. */
const REPLY_SECRET: Partial<Record<SeatProvider, string>> = { slack: 'signingSecret', telegram: 'secretToken' };

/**
 * Whether a reply to the approver's message can vote as them: the channel authenticates replies, and (Telegram)
 * the address is a person's private chat, whose id is theirs; in a group no sender is the chat.
 */
function repliesCount(provider: SeatProvider, config: ResolvedChannelConfig, address: string): boolean {
  const setting = REPLY_SECRET[provider];
  if (provider === 'telegram' && !/^\d+$/.test(address)) return false;
  return setting !== undefined && typeof config[setting] === 'string' && config[setting] !== '';
}

/** The setting of a channel's config that names where its messages go, replaced by the approver's address. */
const ADDRESS_SETTING: Record<SeatProvider, string> = { email: 'to', slack: 'channel', telegram: 'chatId', webhook: 'url' };

export function seatDispatchActivities(deps: SeatDispatchDeps) {
  const { db, config } = deps;
  const outbound = createOutboundClient({ allowCidrs: config.outbound.allowCidrs });

  /**
   * The config to send with: the asking agent's channel of this kind (the first one it declares), its
   * secrets opened here so they never enter history, pointed at the approver. Undefined: no such channel.
   */
  async function configFor(
    approval: {
      userId: string;
      agentId: string | null;
      revision: number | null;
      channelsFrom: { agentId: string; revision: number } | null;
    },
    provider: SeatProvider,
    address: string,
  ): Promise<ResolvedChannelConfig | undefined> {
    const from =
      approval.channelsFrom ??
      (approval.agentId !== null && approval.revision !== null ? { agentId: approval.agentId, revision: approval.revision } : undefined);
    const bundle = from ? await deps.bundleOf(from.agentId, from.revision) : undefined;
    const channel = bundle?.userChannels.find((candidate) => candidate.provider === provider);
    if (!channel) return provider === 'webhook' ? { url: address } : undefined;
    const resolved = await resolveChannelConfig(deps, { userId: approval.userId, grants: bundle!.secretGrants, channel });
    // A webhook address keeps only the channel's secret: the rest of that channel is the user's receiver.
    if (provider === 'webhook') return { url: address, ...(typeof resolved.secret === 'string' ? { secret: resolved.secret } : {}) };
    return { ...resolved, [ADDRESS_SETTING[provider]]: address };
  }

  return {
    /**
     * Sends the question to one approver at one address. Every attempt is recorded; the last one allowed
     * (or a permanent failure) marks it failed, and the workflow goes on with the next.
     */
    async dispatchToApprover(input: {
      approvalId: string;
      position: number;
      provider: SeatProvider;
      maxAttempts: number;
    }): Promise<{ sent: boolean }> {
      const attempt = Context.current().info.attempt;
      const approval = await getApproval(db, input.approvalId);
      if (!approval) throw ApplicationFailure.nonRetryable(`There is no approval ${input.approvalId}`);
      const which = { approvalId: approval.id, position: input.position, provider: input.provider };
      if (approval.status !== 'unanswered') {
        await closeSeatDispatches(db, { ...which, status: 'skipped', error: `not sent: the approval was ${approval.status} first` });
        return { sent: false };
      }
      const seat = (await seatsOf(db, approval.id)).find((candidate) => candidate.position === input.position);
      const address =
        seat && { email: seat.email, slack: seat.slackUserId, telegram: seat.telegramChatId, webhook: seat.webhookUrl }[input.provider];
      if (!seat || !address) throw ApplicationFailure.nonRetryable(`Approver ${input.position} has no ${input.provider} address`);
      // An approver who has voted needs no message (a reminder's resend, or a retry after their vote).
      if (seat.vote || seat.delegatedTo !== null) {
        await closeSeatDispatches(db, { ...which, status: 'skipped', error: 'not sent: the approver had answered' });
        return { sent: false };
      }
      const token = seatToken(deps.masterKeys[0]!, approval.id, seat.position);
      try {
        const resolved = await configFor(approval, input.provider, address);
        if (!resolved)
          throw new ChannelPermanentError(
            `The asking agent has no ${input.provider} channel to send from (its credentials reach ${seat.name}'s ${input.provider} address)`,
          );
        const agent =
          approval.agentId !== null && approval.revision !== null ? await deps.bundleOf(approval.agentId, approval.revision) : undefined;
        const { externalRef } = await channelProviders[input.provider].send(
          resolved,
          {
            approvalId: approval.id,
            question: approval.question,
            options: approval.options,
            expiresAt: approval.expiresAt.toISOString(),
            ...(agent ? { agentName: agent.name } : {}),
            ...(approval.sessionId ? { sessionId: approval.sessionId } : {}),
            answerVia: 'signed-url',
            repliesToo: repliesCount(input.provider, resolved, address),
            links: approvalLinks(serviceBaseUrl(config), token, approval.options),
            token,
            publicBaseUrl: serviceBaseUrl(config),
            standing: standingText(approval.team!, approval.options, await seatsOf(db, approval.id)),
          },
          { outbound, settings: config.channels },
        );
        await recordSeatDispatch(db, { ...which, status: 'sent', externalRef });
        return { sent: true };
      } catch (error) {
        const permanent = error instanceof ChannelPermanentError || (error instanceof Error && error.name === 'ChannelSecretMissingError');
        // As a channel's dispatch: what answers the approval never goes into the record or history.
        const message = outboundErrorText(error).replaceAll(token, '[token]');
        const final = permanent || attempt >= input.maxAttempts;
        await recordSeatDispatch(db, { ...which, status: final ? 'failed' : 'pending', error: message });
        deps.logger.warn({ ...which, attempt, err: message }, 'approver dispatch failed');
        if (permanent) throw nonRetryable(FAILURE.channelPermanent, message);
        throw ApplicationFailure.retryable(message, error instanceof Error ? error.name : 'Error');
      }
    },

    /** The threads to note an outcome in: the last message sent to each approver in a chat. */
    async approverMessages(input: { approvalId: string }) {
      return lastSeatMessages(db, input.approvalId);
    },

    /** A note in the thread of the message sent to an approver (why their reply was not taken, the outcome). */
    async postApproverNotice(input: {
      approvalId: string;
      position: number;
      provider: 'slack' | 'telegram';
      /** The message whose thread it goes in: the one replied to. */
      externalRef: string;
      text: string;
    }): Promise<void> {
      const approval = await getApproval(db, input.approvalId);
      const seat = (await seatsOf(db, input.approvalId)).find((candidate) => candidate.position === input.position);
      const address = input.provider === 'slack' ? seat?.slackUserId : seat?.telegramChatId;
      const notify = channelProviders[input.provider].notify;
      if (!approval || !address || !notify) return;
      try {
        const resolved = await configFor(approval, input.provider, address);
        if (resolved) await notify(resolved, input.externalRef, input.text, { outbound, settings: config.channels });
      } catch (error) {
        if (error instanceof ChannelPermanentError) throw nonRetryable(FAILURE.channelPermanent, error.message);
        throw error;
      }
    },

    /** An approver's dispatch given up on whose last attempt never reported: failed, not pending. */
    async failApproverDispatch(input: { approvalId: string; position: number; provider: SeatProvider }): Promise<void> {
      await closeSeatDispatches(db, { ...input, status: 'failed', error: 'the last attempt did not finish in time' });
    },

    /**
     * An escalation step: its approvers join the approval (if it is still open); their dispatches to send,
     * and, when it adds "me", the user's own channels to ask (the request's `channels` narrow them).
     */
    async escalateApproval(input: { approvalId: string; step: number; to: string[]; channels?: string[] }): Promise<Escalated> {
      let ownChannels: OwnChannel[] | undefined;
      const approval = input.to.includes(ME) ? await getApproval(db, input.approvalId) : undefined;
      const from =
        approval?.channelsFrom ??
        (approval && approval.agentId !== null && approval.revision !== null
          ? { agentId: approval.agentId, revision: approval.revision }
          : undefined);
      if (from) {
        const bundle = await deps.bundleOf(from.agentId, from.revision);
        ownChannels = approvalChannels(bundle, input.channels).map(({ position, provider, answerVia }) => ({
          position,
          provider,
          answerVia,
        }));
      }
      return escalate(db, { ...input, ...(ownChannels ? { ownChannels } : {}) });
    },

    /** A reminder: the addresses of the approvers who have not answered (nor handed their vote on), to ask again. */
    async remindApprovers(input: { approvalId: string }): Promise<Array<{ position: number; provider: SeatProvider }>> {
      const approval = await getApproval(db, input.approvalId);
      if (approval?.status !== 'unanswered') return [];
      const waiting = new Set(
        (await seatsOf(db, input.approvalId)).filter((seat) => !seat.vote && seat.delegatedTo === null).map((seat) => seat.position),
      );
      return (await seatDispatchesOf(db, input.approvalId))
        .filter((dispatch) => waiting.has(dispatch.position))
        .map(({ position, provider }) => ({ position, provider }));
    },

    /** Once decided: approvers not reached yet are skipped. */
    async skipUnsentApproverDispatches(input: { approvalId: string }): Promise<void> {
      await closeSeatDispatches(db, { ...input, status: 'skipped', error: 'not sent: the approval was decided first' });
    },
  };
}
