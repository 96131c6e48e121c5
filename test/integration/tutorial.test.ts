// docs/tutorial.md, followed end to end: the bundle printed on the page (read from the page itself, after
// its `<!-- tutorial-bundle -->` marker) is deployed through POST /deploy with the secrets of steps 2 and 3,
// its cron schedule is fired at once as step 6 does, and the morning goes as the page says: the turn
// recalls `focus`, asks on Slack with one button per priority, a person's click on a button answers, and
// the agent remembers the choice and replies; fired once more, it recalls that choice, and the same
// question is answerable through the API as the page's `approvals answer` does.
//
// Only what cannot work offline differs from the page: the model is the tests' fake Chat Completions
// server (edited into the page's text with jsonc-parser, so every other byte is the page's) and the Slack
// Web API is the tests' fake Slack. The fake model plays the model the instructions ask for: it decides
// each step from the conversation it is sent, so what it stores under `focus` is the answer the service
// handed it, and what the second morning recalls is what the first one stored.
import fs from 'node:fs';
import { applyEdits, modify, parse } from 'jsonc-parser';
import { describe, expect, vi } from 'vitest';
import { ScheduleNotFoundError } from '@temporalio/client';
import { agentTest } from '../helpers/harness/fixtures.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { startFakeSlack, type SlackCall } from '../helpers/fakes/fake-slack.ts';
import { messageText, type ChatMessage, type FakeHandler } from '../helpers/fakes/fake-model.ts';
import { openLink } from '../helpers/client/browser-headers.ts';
import { call } from '../helpers/client/request.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { deleteSchedules } from '../helpers/harness/schedules.ts';

// The fake Slack's address goes into the service's settings, so it has to exist before the harness starts.
const slack = await startFakeSlack();
const test = agentTest({
  SLACK_API_BASE_URL: slack.baseUrl,
  // The fake Slack listens on loopback, which the outbound guard refuses unless allowed.
  OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
});

const scheduleIds = new Set<string>();
test.afterAll(async ({ env }) => {
  await deleteSchedules(env.worker.client, scheduleIds);
  await slack.close();
});

const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };
/** What the fake model proposes each morning, and the question it asks with them. */
const PRIORITIES = ['Write the quarterly report', 'Review the open pull requests', 'Prepare the design review'];
const QUESTION = 'Three priorities for today: which one do we start with?';
const replyFor = (focus: string) => `Start with: ${focus}. Have a good day.`;

// --- the page ------------------------------------------------------------------------------------

/** The bundle text of docs/tutorial.md, exactly as printed after its marker. */
function tutorialBundleText(): string {
  const page = fs.readFileSync(new URL('../../docs/tutorial.md', import.meta.url), 'utf8');
  const match = /<!-- tutorial-bundle -->\s*```jsonc\n([\s\S]*?)\n```/.exec(page);
  if (!match) throw new Error('docs/tutorial.md has no ```jsonc block after <!-- tutorial-bundle -->');
  return match[1]!;
}

/** The page's bundle with its `model` pointed at the fake: a text edit, so comments and all else stay the page's. */
function withFakeModel(text: string): string {
  return applyEdits(text, modify(text, ['model'], FAKE_MODEL, { formattingOptions: { insertSpaces: true, tabSize: 2 } }));
}

const parseJsonc = (text: string) => parse(text, [], { allowTrailingComma: true }) as Record<string, unknown>;
const withoutModel = ({ model: _model, ...rest }: Record<string, unknown>) => rest;

// --- the fake model, playing the planner ---------------------------------------------------------

/** The name of the call a tool message answers, read from the assistant message that made it. */
function toolNameOf(messages: ChatMessage[], toolCallId: string | undefined): string | undefined {
  for (const message of messages) {
    const made = message.tool_calls?.find((toolCall) => toolCall.id === toolCallId);
    if (made) return made.function.name;
  }
  return undefined;
}

/** A tool message's content as the model reads it (the service sends tool outputs as JSON text). */
function toolOutput(message: ChatMessage): unknown {
  const text = messageText(message) ?? '';
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The tool messages of one request that answer calls of `name`. */
function toolMessages(messages: ChatMessage[], name: string): ChatMessage[] {
  return messages.filter((message) => message.role === 'tool' && toolNameOf(messages, message.tool_call_id) === name);
}

/**
 * What the instructions ask, one step per request, decided from the conversation the model is sent:
 * recall `focus`, ask with the three priorities, remember the answer under `focus`, reply with one line.
 */
const planningModel: FakeHandler = ({ body: { messages } }) => {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return { toolCalls: [{ name: 'recall', arguments: { key: 'focus' } }] };
  switch (toolNameOf(messages, last.tool_call_id)) {
    case 'recall':
      return { toolCalls: [{ name: 'ask_my_user', arguments: { question: QUESTION, options: PRIORITIES } }] };
    case 'ask_my_user': {
      const { choice } = toolOutput(last) as { choice: string };
      return { toolCalls: [{ name: 'remember', arguments: { key: 'focus', value: choice } }] };
    }
    case 'remember': {
      const { choice } = toolOutput(toolMessages(messages, 'ask_my_user').at(-1)!) as { choice: string };
      return { text: replyFor(choice) };
    }
    default:
      return { text: `unexpected step after ${messageText(last)}` };
  }
};

// --- the service, as the page's commands read it -------------------------------------------------

async function putSecret(env: AgentEnv, key: string, value: string): Promise<void> {
  const stored = await call(`${env.api.url}/secret/${key}`, { method: 'PUT', headers: env.user.auth, json: { value } });
  expect(stored.status, stored.text).toBeLessThan(300);
}

/** POST /deploy with the bundle as JSONC text, as `agent-service deploy planner.jsonc` sends it. */
async function deployJsonc(env: AgentEnv, text: string) {
  return call<{ ok: boolean; agentId: string; revision: number }>(`${env.api.url}/deploy`, {
    headers: { ...env.user.auth, 'content-type': 'application/jsonc' },
    body: text,
  });
}

interface AgentView {
  id: string;
  bundle: Record<string, unknown>;
  triggers: Array<{ kind: string; expression?: string; timezone?: string; scheduleId?: string }>;
}

const readAgent = async (env: AgentEnv, name: string) =>
  (await call<AgentView>(`${env.api.url}/agent/${name}`, { headers: env.user.auth })).body;

const sessionIdsOf = async (env: AgentEnv, name: string) =>
  (await call<{ sessions: Array<{ id: string }> }>(`${env.api.url}/agent/${name}/sessions`, { headers: env.user.auth })).body.sessions.map(
    (session) => session.id,
  );

/** Waits for the deploy's reconcile (asynchronous) to have made the Temporal Schedule. */
async function scheduleExists(env: AgentEnv, id: string): Promise<void> {
  await vi.waitFor(
    async () => {
      try {
        await env.worker.client.schedule.getHandle(id).describe();
      } catch (error) {
        if (error instanceof ScheduleNotFoundError) throw new Error(`schedule ${id} was not created`);
        throw error;
      }
    },
    { timeout: 20_000, interval: 200 },
  );
}

/** Step 6's "Trigger": fires the schedule now; answers the session the firing opened. */
async function fireNow(env: AgentEnv, name: string, scheduleId: string): Promise<string> {
  const before = new Set(await sessionIdsOf(env, name));
  await env.worker.client.schedule.getHandle(scheduleId).trigger();
  return vi.waitFor(
    async () => {
      const opened = (await sessionIdsOf(env, name)).filter((id) => !before.has(id));
      if (opened.length !== 1) throw new Error(`the firing opened ${opened.length} sessions`);
      return opened[0]!;
    },
    { timeout: 20_000, interval: 200 },
  );
}

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);

const waitForQuestion = (env: AgentEnv, sessionId: string) =>
  env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'approval.requested'));
const waitForTurnEnd = (env: AgentEnv, sessionId: string) =>
  env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.completed' || event.type === 'turn.failed'));

async function sessionStatus(env: AgentEnv, sessionId: string): Promise<string> {
  return (await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth })).body.status;
}

/** The last assistant message's text, as GET /session shows the conversation. */
async function lastReply(env: AgentEnv, sessionId: string): Promise<string | undefined> {
  const session = await call<{ messages: Array<{ role: string; parts: Array<{ type: string; text?: string }> }> }>(
    `${env.api.url}/session/${sessionId}`,
    { headers: env.user.auth },
  );
  const reply = session.body.messages.findLast((message) => message.role === 'assistant');
  return reply?.parts.find((part) => part.type === 'text')?.text;
}

// --- Slack ---------------------------------------------------------------------------------------

interface SlackButton {
  text: { text: string };
  url: string;
}

/** The first chat.postMessage after the first `seen` calls that carries the question. */
async function questionPostedAfter(seen: number): Promise<SlackCall> {
  return vi.waitFor(
    () => {
      const posted = slack.calls.slice(seen).find((item) => String(item.body?.text ?? '').includes(QUESTION));
      if (!posted) throw new Error('the question was not posted to Slack');
      return posted;
    },
    { timeout: 15_000, interval: 50 },
  );
}

function buttonsOf(posted: SlackCall): SlackButton[] {
  const blocks = (posted.body?.blocks ?? []) as Array<{ type: string; elements?: SlackButton[] }>;
  return blocks.filter((block) => block.type === 'actions').flatMap((block) => block.elements ?? []);
}

// --- the tutorial ----------------------------------------------------------------------------------

describe('docs/tutorial.md', () => {
  test('the planner of the tutorial: deployed from the page, fired now, asks on Slack, a click answers, and the next morning recalls the choice', async ({
    env,
  }) => {
    // Steps 2 and 3: the secrets the bundle grants. The fake model never reads the provider's key; it is
    // stored all the same, so that the deploy is the page's, without a warning about a missing secret.
    const slackToken = 'xoxb-tutorial-offline';
    await putSecret(env, 'OPENROUTER_API_KEY', 'sk-or-offline');
    await putSecret(env, 'SLACK_BOT_TOKEN', slackToken);

    // Step 4: the page's bundle; only its model is changed, and nothing else moved in the edit.
    const page = tutorialBundleText();
    const bundle = withFakeModel(page);
    expect(withoutModel(parseJsonc(bundle))).toEqual(withoutModel(parseJsonc(page)));
    expect(parseJsonc(bundle).model).toEqual(FAKE_MODEL);
    const name = parseJsonc(page).name as string;
    expect(name).toBe('planner');

    // Step 5: deploy. Revision 1 of a new agent, its cron trigger a schedule named as the page says.
    const deployed = await deployJsonc(env, bundle);
    expect(deployed.status, deployed.text).toBe(201);
    // With both secrets stored, the page's bundle deploys without a warning.
    expect(deployed.body).toMatchObject({ ok: true, revision: 1, warnings: [] });
    const agent = await readAgent(env, name);
    const { $schema: _schema, ...stored } = withoutModel(parseJsonc(page));
    expect(agent.bundle).toMatchObject(stored);
    const scheduleId = agent.triggers[0]?.scheduleId;
    expect(agent.triggers).toEqual([
      expect.objectContaining({ kind: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Paris', scheduleId: `cron:${agent.id}:0` }),
    ]);
    scheduleIds.add(scheduleId!);
    await scheduleExists(env, scheduleId!);

    // Step 6: fire it now. The fake model follows the instructions from here on.
    env.fake.setHandler(planningModel);
    const slackCallsBefore = slack.calls.length;
    const firstMorning = await fireNow(env, name, scheduleId!);

    const asking = await waitForQuestion(env, firstMorning);
    const [fired] = ofType(asking, 'trigger.fired');
    expect(fired).toMatchObject({ trigger: { kind: 'cron', index: 0, expression: '0 9 * * 1-5', timezone: 'Europe/Paris' } });
    const [firstMessage] = ofType(asking, 'message.created');
    expect(firstMessage?.message.role).toBe('user');
    const firstText = firstMessage?.message.parts.find((part) => part.type === 'text');
    // The first message says which trigger fired and when, followed by the trigger's `message`.
    expect(firstText).toMatchObject({ text: expect.stringMatching(/^Scheduled trigger fired: cron "0 9 \* \* 1-5" \(Europe\/Paris\)/) });
    expect(firstText).toMatchObject({ text: expect.stringMatching(/\n\nGood morning\. Plan my day\.$/) });
    // The memory call came first; on the first morning there is nothing under `focus` yet.
    expect(ofType(asking, 'tool.result').map((result) => [result.toolName, result.isError === true])).toEqual([['recall', true]]);
    const [requested] = ofType(asking, 'approval.requested');
    expect(requested).toMatchObject({ question: QUESTION, options: PRIORITIES, source: 'tool' });
    // "the turn now waits, and the session's status is `waiting`".
    await vi.waitFor(async () => expect(await sessionStatus(env, firstMorning)).toBe('waiting'), { timeout: 10_000, interval: 100 });

    // "In Slack, the question and three buttons appear", posted with the bot token from the secret.
    const posted = await questionPostedAfter(slackCallsBefore);
    expect(posted.headers.authorization).toBe(`Bearer ${slackToken}`);
    expect(posted.body).toMatchObject({ channel: 'C0123456789' });
    const buttons = buttonsOf(posted);
    expect(buttons.map((button) => button.text.text)).toEqual(PRIORITIES);
    // Each button is a signed link to this service, `<base>/approval/<token>/answer?choice=<option>`.
    for (const [index, button] of buttons.entries()) {
      const link = new URL(button.url);
      expect(link.origin).toBe(new URL(env.api.url).origin);
      expect(link.pathname).toMatch(/^\/approval\/[^/]+\/answer$/);
      expect(link.searchParams.get('choice')).toBe(PRIORITIES[index]);
    }

    // "Click one: a page says your choice is recorded".
    const chosen = PRIORITIES[1]!;
    const clicked = await openLink(buttons[1]!.url);
    expect(clicked.status, clicked.text).toBe(200);
    expect(clicked.text).toContain(`Thank you: “${chosen}” is recorded.`);

    // "the events show approval.answered, and the turn goes on: the agent remembers your choice and replies".
    const morning = await waitForTurnEnd(env, firstMorning);
    expect(ofType(morning, 'turn.failed')).toEqual([]);
    expect(ofType(morning, 'approval.answered')).toEqual([
      expect.objectContaining({ approvalId: requested!.approvalId, choice: chosen, note: null, via: 'link' }),
    ]);
    const types = morning.map((event) => event.type);
    expect(types.indexOf('trigger.fired')).toBeLessThan(types.indexOf('approval.requested'));
    expect(types.indexOf('approval.requested')).toBeLessThan(types.indexOf('approval.answered'));
    expect(types.indexOf('approval.answered')).toBeLessThan(types.indexOf('turn.completed'));
    const remembered = ofType(morning, 'tool.call').filter((toolCall) => toolCall.toolName === 'remember');
    expect(remembered.map((toolCall) => toolCall.input)).toEqual([{ key: 'focus', value: chosen }]);
    expect(ofType(morning, 'tool.result').find((result) => result.toolName === 'remember')?.isError).not.toBe(true);
    expect(await lastReply(env, firstMorning)).toBe(replyFor(chosen));
    expect(await sessionStatus(env, firstMorning)).toBe('idle');

    // "Fire it once more: this time the agent recalls yesterday's focus before it proposes."
    const slackCallsBeforeSecond = slack.calls.length;
    const secondMorning = await fireNow(env, name, scheduleId!);
    expect(secondMorning).not.toBe(firstMorning);
    const recalling = await waitForQuestion(env, secondMorning);
    const [recalled] = ofType(recalling, 'tool.result').filter((result) => result.toolName === 'recall');
    expect(recalled).toMatchObject({ output: { key: 'focus', value: chosen } });
    expect(recalled?.isError).not.toBe(true);
    // And the model was sent it: the request that proposed today's priorities carried yesterday's choice.
    const proposing = env.fake.requests.find((request) =>
      toolMessages(request.body.messages, 'recall').some((message) => JSON.stringify(toolOutput(message)).includes(chosen)),
    );
    expect(proposing, 'no model request carried the recalled focus').toBeDefined();
    const secondPosted = await questionPostedAfter(slackCallsBeforeSecond);

    // "The same question is open in other places too, and the first answer wins": the page's
    // `approvals ls --status unanswered` and `approvals answer apr_... "<option>" --note "after lunch"`.
    const [secondQuestion] = ofType(recalling, 'approval.requested');
    const unanswered = await call<{ approvals: Array<{ id: string }> }>(`${env.api.url}/approval?status=unanswered`, {
      headers: env.user.auth,
    });
    expect(unanswered.body.approvals.map((approval) => approval.id)).toContain(secondQuestion!.approvalId);
    const nextChoice = PRIORITIES[0]!;
    const answered = await call(`${env.api.url}/approval/${secondQuestion!.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: nextChoice, note: 'after lunch' },
    });
    expect(answered.status, answered.text).toBe(200);
    // The first answer won: a click on the Slack button afterwards changes nothing.
    const late = await openLink(buttonsOf(secondPosted)[2]!.url);
    expect(late.status, late.text).toBe(409);
    const second = await waitForTurnEnd(env, secondMorning);
    expect(ofType(second, 'approval.answered')).toEqual([expect.objectContaining({ choice: nextChoice, note: 'after lunch', via: 'api' })]);
    expect(await lastReply(env, secondMorning)).toBe(replyFor(nextChoice));
  }, 120_000);
});
