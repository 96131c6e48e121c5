// askHuman's `channels`: a question goes over the chosen channels of the agent only (the others are
// never tried), over all of them without it, and a provider the agent does not declare, or channels
// without an agent, are refused with the JSON pointer of the fault.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startSmtpSink } from '../helpers/fakes/smtp-sink.ts';
import { startWebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { BadRequestError, Client } from '../../sdk/src/index.ts';

// The SMTP sink speaks plain text on a loopback address.
const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SMTP_PLAINTEXT_LOOPBACK: 'on' });

describe('askHuman channels', () => {
  test('the question goes over the chosen channels only; without channels, over all of them', async ({ env, onTestFinished }) => {
    const [hooks, sink] = await Promise.all([startWebhookReceiver(), startSmtpSink()]);
    onTestFinished(() => Promise.all([hooks.close(), sink.close()]).then(() => undefined));
    const { name } = await env.deploy({
      userChannels: [
        { provider: 'email', config: { host: sink.host, port: sink.port, from: 'Agent <bot@agents.test>', to: 'me@agents.test' } },
        { provider: 'webhook', config: { url: hooks.url } },
      ],
    });
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });

    const narrowed = await client.askHuman({ question: 'Only by webhook?', agent: name, channels: ['webhook'] });
    const [request] = await hooks.waitForRequests(1);
    expect(request!.body).toContain(narrowed.id);
    const view = await client.approvals.retrieve(narrowed.id);
    expect(view.dispatches).toEqual([expect.objectContaining({ position: 1, provider: 'webhook' })]);

    const everywhere = await client.askHuman({ question: 'Every way?', agent: name });
    const [mail] = await sink.waitForMail(1);
    expect(mail!.text).toContain('Every way?');
    expect((await hooks.waitForRequests(2))[1]!.body).toContain(everywhere.id);
    // Only the second question was mailed: the first never tried its agent's email channel.
    expect(sink.mails).toHaveLength(1);
    const all = await client.approvals.retrieve(everywhere.id);
    expect(all.dispatches!.map((dispatch) => dispatch.provider)).toEqual(['email', 'webhook']);
  });

  test('a provider the agent does not declare, or channels without an agent, is a BadRequestError pointing at it', async ({ env }) => {
    const { name } = await env.deploy({ userChannels: [{ provider: 'webhook', config: { url: 'http://127.0.0.1:9/hooks' } }] });
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const undeclared = await client
      .askHuman({ question: 'By Slack?', agent: name, channels: ['webhook', 'slack'] })
      .catch((error: unknown) => error);
    expect(undeclared).toBeInstanceOf(BadRequestError);
    expect((undeclared as BadRequestError).errors.map((fault) => fault.path)).toEqual(['/channels/1']);
    const agentless = await client.askHuman({ question: 'By what?', channels: ['webhook'] }).catch((error: unknown) => error);
    expect(agentless).toBeInstanceOf(BadRequestError);
    expect((agentless as BadRequestError).errors.map((fault) => fault.path)).toEqual(['/channels']);
    // Nothing was asked: the refused questions are not among the user's approvals.
    const questions = (await client.approvals.list().toArray()).map((approval) => approval.question);
    expect(questions).not.toContain('By Slack?');
    expect(questions).not.toContain('By what?');
  });
});
