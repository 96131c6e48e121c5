// Approvals over the API: ask (what the SDK's askHuman calls), read (optionally waiting for the
// answer), list, and answer: by id with a key, or by the signed token of a public answer link.
import { ANSWER_VIAS, APPROVAL_LIMITS, APPROVAL_QUESTION_PROPERTIES, TEAM_LIMITS } from '../approvals.ts';
import { CHANNEL_PROVIDERS } from '../bundle-constants.ts';
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { IDEMPOTENCY_KEY_HEADERS, NULLABLE_STRING, NULLABLE_TIME, STRINGS, TIME } from './shared.ts';

export const APPROVAL_STATUSES = ['unanswered', 'answered', 'expired'] as const;

const LINKS_SCHEMA = {
  type: 'object',
  required: ['page', 'options'],
  properties: {
    page: { type: 'string', description: 'The answer page: the question with a button per option' },
    options: {
      type: 'array',
      description: 'One one-click link per option, in order',
      items: { type: 'object', required: ['option', 'url'], properties: { option: { type: 'string' }, url: { type: 'string' } } },
    },
  },
} as const;

export const APPROVAL_SCHEMA = {
  type: 'object',
  required: ['id', 'status', 'question', 'options', 'createdAt', 'expiresAt'],
  properties: {
    id: { type: 'string' },
    status: { enum: APPROVAL_STATUSES },
    question: { type: 'string' },
    options: STRINGS,
    choice: NULLABLE_STRING,
    note: NULLABLE_STRING,
    answeredVia: { enum: [...ANSWER_VIAS, null] },
    source: { enum: ['tool', 'workflow', 'api'] },
    agentId: NULLABLE_STRING,
    sessionId: NULLABLE_STRING,
    turnId: NULLABLE_STRING,
    toolCallId: NULLABLE_STRING,
    connect: {
      type: 'object',
      required: ['serverId'],
      properties: { serverId: { type: 'string' } },
      description:
        'A sign-in asked for: answered only by the user signing in to this MCP server of theirs (its link, POST ' +
        '/mcp/<serverId>/connect or the dashboard), never by a choice. Absent on other questions',
    },
    createdAt: TIME,
    expiresAt: TIME,
    answeredAt: NULLABLE_TIME,
    expiredAt: NULLABLE_TIME,
    token: {
      type: 'string',
      description:
        'Signed token of the public answer links; it answers this approval, keep it private. Only for keys with approvals:answer',
    },
    links: { ...LINKS_SCHEMA, description: 'The answer page and one one-click link per option. Only for keys with approvals:answer' },
    quorum: {
      type: 'integer',
      description: 'Of an approval a team answers (`approvers` given): the votes for one option that decide it. Absent otherwise',
    },
    denyWins: { type: 'boolean', description: 'Of an approval a team answers: a vote for `refusingOption` decides at once' },
    refusingOption: { type: ['string', 'null'], description: 'The option that refuses (deny, no, reject or decline), if any' },
    tally: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: 'Of an approval a team answers: the votes per option so far (when decided, the votes then)',
    },
    decidedBy: { type: ['string', 'null'], description: 'Of an approval a team answered: the approver whose vote decided it' },
    approvers: {
      type: 'array',
      description: 'Of an approval a team answers: one seat per approver ("me" is you), in order, each with its vote',
      items: {
        type: 'object',
        required: ['name', 'addedBy', 'vote'],
        properties: {
          name: { type: 'string' },
          addedBy: { enum: ['request', 'escalation', 'delegation'] },
          delegatedTo: { type: ['string', 'null'], description: 'The approver this one handed their vote to: they vote no more' },
          vote: {
            type: ['object', 'null'],
            required: ['choice', 'note', 'via', 'votedAt'],
            properties: { choice: { type: 'string' }, note: NULLABLE_STRING, via: { enum: ANSWER_VIAS }, votedAt: TIME },
          },
          dispatches: {
            type: 'array',
            description:
              "Where this approver is asked: one per address of theirs (over the asking agent's channel of that kind; a webhook " +
              'address needs none), GET /approval/<id> only',
            items: {
              type: 'object',
              properties: {
                provider: { enum: ['email', 'slack', 'telegram', 'webhook'] },
                status: { enum: ['pending', 'sent', 'failed', 'skipped'] },
                attempts: { type: 'integer' },
                error: NULLABLE_STRING,
                updatedAt: TIME,
              },
            },
          },
          links: {
            ...LINKS_SCHEMA,
            description:
              "This approver's own links: they answer as this approver only, once (forwarded, still as them). " +
              'Only for keys with agents:write, which could redirect the approvers anyway: a key that may only answer cannot ' +
              'cast every vote',
          },
        },
      },
    },
    dispatches: {
      type: 'array',
      description:
        "One per channel the approval goes over (all of the asking agent's, or those `channels` chose), in declared order; " +
        "`position` is the channel's in `userChannels` (GET /approval/<id> only)",
      items: {
        type: 'object',
        properties: {
          position: { type: 'integer' },
          provider: { type: 'string' },
          answerVia: { enum: ['reply', 'signed-url'] },
          status: { enum: ['pending', 'sent', 'failed', 'skipped'] },
          attempts: { type: 'integer' },
          error: NULLABLE_STRING,
          updatedAt: TIME,
        },
      },
    },
  },
} as const;

export const ANSWERED_SCHEMA = {
  type: 'object',
  required: ['id', 'status', 'choice', 'note', 'answeredAt'],
  properties: {
    id: { type: 'string' },
    status: { const: 'answered' },
    choice: { type: 'string' },
    note: NULLABLE_STRING,
    answeredAt: TIME,
    approver: { type: 'string', description: 'Of an approval a team answers: whose vote decided it' },
    tally: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: 'Of an approval a team answers: the votes per option',
    },
  },
} as const;

/** A vote of an approval a team answers that did not decide it: it waits on more votes. */
export const VOTE_COUNTED_SCHEMA = {
  type: 'object',
  required: ['id', 'status', 'approver', 'choice', 'tally', 'quorum'],
  properties: {
    id: { type: 'string' },
    status: { const: 'unanswered' },
    approver: { type: 'string', description: 'Whose vote it is: "me" for you, or the approver a link names' },
    choice: { type: 'string' },
    tally: { type: 'object', additionalProperties: { type: 'integer' }, description: 'The votes per option so far' },
    quorum: { type: 'integer', description: 'The votes for one option that decide it' },
  },
} as const;

export const CREATE_APPROVAL_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['question'],
  properties: {
    question: APPROVAL_QUESTION_PROPERTIES.question,
    options: APPROVAL_QUESTION_PROPERTIES.options,
    expiresInMs: { ...APPROVAL_QUESTION_PROPERTIES.expiresInMs, description: 'At most APPROVAL_MAX_EXPIRY_MS (30 days unless configured)' },
    agent: { type: 'string', minLength: 1, maxLength: 63, description: 'Name of the agent whose channels carry the question' },
    sessionId: { type: 'string', minLength: 1, maxLength: 64, description: 'The session the approval belongs to' },
    channels: {
      type: 'array',
      uniqueItems: true,
      maxItems: CHANNEL_PROVIDERS.length,
      items: { enum: CHANNEL_PROVIDERS },
      description:
        "Send over these of the agent's channels only (by provider, each one the agent declares; still in declared order); " +
        '`[]` sends over none. Without it, over all of them. Needs `agent` or `sessionId`',
    },
    approvers: {
      type: 'array',
      minItems: 1,
      maxItems: TEAM_LIMITS.approvers,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 70 },
      description:
        'Who may answer (docs/approvals.md, "Several approvers"): "me" (you: the API, the dashboard, the CLI, your links and ' +
        "the agent's channels), names from your directory (PUT /approver/<name>), `group:<name>` for a group's members. " +
        `At most ${TEAM_LIMITS.seats} approvers once groups are counted. Without it, anyone holding the approval answers it, once`,
    },
    quorum: {
      oneOf: [{ type: 'integer', minimum: 1, maximum: TEAM_LIMITS.seats }, { const: 'all' }],
      description: 'How many votes for one option decide it (default 1); "all", or the number of approvers, means every one',
    },
    denyWins: {
      type: 'boolean',
      description:
        'A vote for the refusing option (deny, no, reject or decline) decides at once. Default: true when quorum is above 1 ' +
        'and an option refuses',
    },
    remind: {
      type: 'object',
      additionalProperties: false,
      required: ['everyMs'],
      properties: { everyMs: { type: 'integer', minimum: TEAM_LIMITS.minIntervalMs, maximum: TEAM_LIMITS.maxIntervalMs } },
      description: 'The approvers who have not answered are asked again (at their addresses) this often. Needs `approvers`',
    },
    escalate: {
      type: 'array',
      minItems: 1,
      maxItems: TEAM_LIMITS.escalations,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['afterMs', 'to'],
        properties: {
          afterMs: { type: 'integer', minimum: TEAM_LIMITS.minIntervalMs, maximum: TEAM_LIMITS.maxIntervalMs },
          to: { type: 'array', minItems: 1, maxItems: TEAM_LIMITS.approvers, items: { type: 'string', minLength: 1, maxLength: 70 } },
        },
      },
      description:
        'Approvers (names or groups) added once it has waited `afterMs`, in order (each later than the one before): each step ' +
        'is an approval.escalated event and webhook, and the new approvers are asked at once. The quorum stays. Needs `approvers`',
    },
  },
} as const;

export const ANSWER_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    choice: { type: 'string', minLength: 1, maxLength: APPROVAL_LIMITS.optionChars },
    note: { type: 'string', maxLength: APPROVAL_LIMITS.noteChars },
  },
} as const;

const CHOICE_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { choice: { type: 'string', maxLength: APPROVAL_LIMITS.optionChars } },
} as const;

/** The small pages a browser gets from the public answer link. */
const HTML_PAGE = { 'text/html': { type: 'string' } } as const;

const ANSWER_PAGE_DESCRIPTION =
  'With a signed token (from an approval’s `links` or `token`) it is public: `choice` comes from the query or the body ' +
  '(JSON or an HTML form), `note` from the body. Browsers get small HTML pages, `Accept: application/json` gets JSON.';

export const createApproval = defineOperation({
  id: 'createApproval',
  method: 'post',
  path: '/approval',
  summary: 'Ask the user a question (what the SDK askHuman calls)',
  description:
    'Creates a durable approval and sends it over the channels (`userChannels`) of `agent` (an agent name), or of the ' +
    "session's agent when only `sessionId` is given; without either, it is answered through the API and its links only. " +
    `Options default to ["yes", "no"] (1 to ${APPROVAL_LIMITS.options}, distinct ignoring case, not bare numbers). ` +
    `\`expiresInMs\` defaults to APPROVAL_DEFAULT_EXPIRY_MS (7 days) and is at most APPROVAL_MAX_EXPIRY_MS. ` +
    'With `sessionId`, its events (approval.requested, .answered, .expired) go to that session. `channels` narrows the ' +
    "agent's channels to some providers (a provider the agent does not declare is a 400 pointing at it). " +
    'It is taken at once, workers running or not: readable, listed and answerable from the 201 on, sent over its ' +
    'channels once a worker runs its workflow. A 503 (the workflow engine did not answer) may or may not have ' +
    'created it: retry with the same Idempotency-Key, and the person is asked once.',
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: { required: true, schema: CREATE_APPROVAL_BODY_SCHEMA },
  headers: IDEMPOTENCY_KEY_HEADERS,
  responses: {
    201: { description: 'Created and being sent', schema: APPROVAL_SCHEMA },
    400: { description: 'Invalid; or `channels` names a provider the agent does not declare, or is given without an agent' },
    404: { description: 'No such agent or session' },
    422: { description: 'The Idempotency-Key was used for a different request' },
  },
});

export const listApprovals = defineOperation({
  id: 'listApprovals',
  method: 'get',
  path: '/approval',
  summary: 'Your approvals, newest first; filter by status or session; pass `next` as `before` for the next page',
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'read' },
  query: {
    type: 'object',
    additionalProperties: false,
    properties: {
      status: { enum: APPROVAL_STATUSES },
      sessionId: { type: 'string', maxLength: 64 },
      limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
      before: { type: 'string', maxLength: 64, description: 'The id of the last approval of the previous page' },
    },
  },
  responses: {
    200: {
      description: 'Approvals, and the cursor of the next page (null at the end)',
      schema: {
        type: 'object',
        required: ['approvals', 'next'],
        properties: { approvals: { type: 'array', items: APPROVAL_SCHEMA }, next: { type: ['string', 'null'] } },
      },
    },
  },
});

export const getApproval = defineOperation({
  id: 'getApproval',
  method: 'get',
  path: '/approval/{id}',
  summary: 'One approval, with its channel dispatches; `?wait=<seconds>` holds until it is answered or expired',
  description:
    'A read with `wait` above 0 holds its connection and counts toward OPEN_STREAMS_PER_USER meanwhile (429 `stream-limit` ' +
    'with Retry-After beyond).',
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'read' },
  query: {
    type: 'object',
    additionalProperties: false,
    properties: {
      wait: { type: 'integer', minimum: 0, default: 0, description: 'At most APPROVAL_MAX_WAIT_SECONDS (60 unless configured)' },
    },
  },
  responses: {
    200: { description: 'The approval as it stands (still unanswered if the wait ended first)', schema: APPROVAL_SCHEMA },
    403: { description: "Another user's approval" },
    404: { description: 'No such approval' },
  },
});

export const answerApproval = defineOperation({
  id: 'answerApproval',
  method: 'post',
  path: '/approval/{ref}/answer',
  summary: 'Answer an approval: by id with an API key, or by signed token (public link)',
  description:
    'With an approval id (`apr_…`) this needs a key with the `approvals:answer` scope and a JSON body `{choice, note?}`: ' +
    'the first answer is 200, any later one 409, an expired approval 410, a choice outside the options 400 ' +
    '(options compare ignoring case). An approval with `approvers` counts votes: a vote that decides it is 200 (with ' +
    '`approver` and `tally`), one that does not is 202 with the tally; a second vote of the same approver is 409, and an ' +
    'answer by someone who is not an approver (by key: you, unless "me" is one) is 403 and counted nowhere. ' +
    ANSWER_PAGE_DESCRIPTION,
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'approvals:answer', keyless: 'a signed token in place of the approval id (a public answer link)' },
  body: { contentTypes: ['application/json', 'application/x-www-form-urlencoded'], schema: ANSWER_BODY_SCHEMA },
  query: CHOICE_QUERY,
  responses: {
    200: { description: 'Recorded: this answer won (or this vote decided)', schema: ANSWERED_SCHEMA, also: HTML_PAGE },
    202: { description: 'A vote counted; the approval waits on more votes', schema: VOTE_COUNTED_SCHEMA, also: HTML_PAGE },
    303: { description: "A connect question's button (by token): the sign-in started, the browser goes on to the authorization server" },
    400: {
      description: 'Not one of the options, a malformed body, or a connect question (answered only by its sign-in)',
      also: HTML_PAGE,
    },
    403: {
      description: "Another user's approval, a key without approvals:answer, or an answer by someone who is not one of its approvers",
      also: HTML_PAGE,
    },
    404: { description: 'No such approval, or a token that is not valid', also: HTML_PAGE },
    409: { description: 'Already answered, or this approver has voted already', also: HTML_PAGE },
    410: { description: 'Expired', also: HTML_PAGE },
  },
});

export const DELEGATE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: {
    from: { type: 'string', minLength: 1, maxLength: 63, description: 'The approver who hands on their vote (one who has not voted)' },
    to: { type: 'string', minLength: 1, maxLength: 63, description: 'An approver of your directory who is not one of this approval’s' },
  },
} as const;

export const delegateApproval = defineOperation({
  id: 'delegateApproval',
  method: 'post',
  path: '/approval/{id}/delegate',
  summary: "Hand an approver's vote to another approver of your directory",
  description:
    'For an approval with `approvers`: `to` joins it in the place of `from` (recorded on both, with an approval.delegated ' +
    'event), is asked at their addresses with their own links, and `from` votes no more. 409 when `from` has voted or ' +
    'handed on already, or `to` is one of its approvers already; 400 when either is not who they must be.',
  tag: 'approvals',
  // It changes who may approve, as the directory does.
  auth: { kind: 'scope', scope: 'agents:write' },
  body: { required: true, schema: DELEGATE_BODY_SCHEMA },
  responses: {
    200: { description: 'Handed on: the approval as it stands', schema: APPROVAL_SCHEMA },
    400: { description: 'Not an approval with approvers, `from` is none of its approvers, or `to` is not in your directory' },
    403: { description: "Another user's approval, or a key without agents:write" },
    404: { description: 'No such approval' },
    409: { description: '`from` has voted or handed on already, or `to` is an approver of it already' },
    410: { description: 'It has ended' },
  },
});

export const openAnswerLink = defineOperation({
  id: 'openAnswerLink',
  method: 'get',
  path: '/approval/{ref}/answer',
  summary: "The public answer link: a person's click with ?choice= answers; scanners, previews and HEAD never do",
  description:
    "Public, by signed token. With `choice`, a GET that is a person's click records the answer: a top-level " +
    'navigation the user set off (`Sec-Fetch-User: ?1` with `Sec-Fetch-Mode: navigate`, which browsers send) from ' +
    'a browser that is not a known link-preview fetcher. Then 200, then 409 for a later answer, 410 once expired, ' +
    '400 for a choice outside the options. Anything else (no `choice`, HEAD, a mail scanner opening the link with a ' +
    "browser's User-Agent, Slackbot, TelegramBot, facebookexternalhit, a request without User-Agent, a script) is " +
    'shown the question with a button per option, which answers with POST, and records nothing. A token that is ' +
    'malformed or not signed by this service is 404 and writes nothing. A question that asks its user to sign in to an MCP ' +
    'server (`connect`) is answered only by that sign-in: a click on its link starts the sign-in (303 to the authorization ' +
    'server), anything else sees a button that does.',
  tag: 'approvals',
  auth: { kind: 'public' },
  query: CHOICE_QUERY,
  responses: {
    200: { description: 'The page (HTML), or the recorded answer', schema: ANSWERED_SCHEMA, also: HTML_PAGE },
    303: { description: "A connect question's link: the sign-in started, the browser goes on to the authorization server" },
    400: { description: 'Not one of the options', also: HTML_PAGE },
    404: { description: 'Not a valid approval link', also: HTML_PAGE },
    409: { description: 'Already answered', also: HTML_PAGE },
    410: { description: 'Expired', also: HTML_PAGE },
  },
});

export const DELEGATE_BY_LINK_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['to'],
  properties: {
    to: {
      type: 'string',
      maxLength: 100,
      description: 'The name, in the directory of the approval’s user, of the approver who votes in this one’s place',
    },
  },
} as const;

export const DELEGATED_BY_LINK_SCHEMA = {
  type: 'object',
  required: ['id', 'from', 'to'],
  properties: {
    id: { type: 'string' },
    from: { type: 'string', description: 'The approver the link votes as, who votes no more' },
    to: { type: 'string', description: 'The approver who now votes in their place' },
  },
} as const;

export const delegateByLink = defineOperation({
  id: 'delegateByLink',
  method: 'post',
  path: '/approval/{token}/answer/delegate',
  summary: "An approver's link page hands their vote to another approver (the page's second form)",
  description:
    "Public, by the signed token of one approver's links (an approval with `approvers`): `to` (JSON or an HTML form) " +
    'joins the approval in their place, as POST /approval/<id>/delegate does, and the link votes no more. The ' +
    "approval's own token (its user's) hands nothing on: 403. A name the directory lacks is a 400 that lists nobody. " +
    'Browsers get small HTML pages, `Accept: application/json` gets JSON. Only a POST acts: the link page offers its ' +
    'form to an approver who has neither voted nor handed on.',
  tag: 'approvals',
  auth: { kind: 'public' },
  body: { contentTypes: ['application/json', 'application/x-www-form-urlencoded'], schema: DELEGATE_BY_LINK_BODY_SCHEMA },
  responses: {
    200: { description: 'Handed on', schema: DELEGATED_BY_LINK_SCHEMA, also: HTML_PAGE },
    400: { description: 'No approver of that name in the directory, or no name given', also: HTML_PAGE },
    403: { description: "Not one approver's link (the approval's own, or an approval without approvers)", also: HTML_PAGE },
    404: { description: 'Not a valid approval link', also: HTML_PAGE },
    409: {
      description: 'Answered already, this approver voted or handed on already, `to` is one of its approvers already, or it is full',
      also: HTML_PAGE,
    },
    410: { description: 'Expired', also: HTML_PAGE },
  },
});

export const receiveInboundReply = defineOperation({
  id: 'receiveInboundReply',
  method: 'post',
  path: '/inbound/{provider}',
  summary: 'Replies to approvals from a channel provider (slack, telegram, email, webhook)',
  description:
    'Public; each provider is authenticated its own way with the secrets of the channel that sent the question: ' +
    'Slack by `X-Slack-Signature` (the channel config `signingSecret`, 5-minute timestamp window), Telegram by ' +
    '`X-Telegram-Bot-Api-Secret-Token` (`secretToken`), email by the signed reply address (`<local>+<token>@…`) the ' +
    'question was sent with, webhook by a Standard Webhooks signature with the channel `secret`. A reply matches ' +
    'an option by its name or number on its first line; the rest of that line is kept as the note. Slack and ' +
    'Telegram get 200 for every authentic request (with `answered: false` and a reason when nothing was recorded).',
  tag: 'approvals',
  auth: { kind: 'public' },
  body: {
    contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
    schema: { type: 'object', description: "The provider's own payload" },
  },
  responses: {
    200: {
      description:
        'Handled (see `answered`); a request that is no reply (a Slack url_verification, another event) gets what its provider expects',
      schema: {
        type: 'object',
        properties: {
          ok: { type: 'boolean' },
          answered: { type: 'boolean' },
          ignored: { type: 'boolean' },
          approvalId: { type: 'string' },
          reason: { type: 'string' },
          challenge: { type: 'string', description: 'Slack url_verification: the challenge, echoed' },
        },
      },
    },
    401: { description: 'Not authentic for the channel it names' },
    404: { description: 'Unknown provider, or no question was sent to this channel' },
    409: { description: 'Already answered (email, webhook)' },
    410: { description: 'Expired (email, webhook)' },
  },
});

export type ApprovalView = Sent<typeof APPROVAL_SCHEMA>;
export type ApprovalStatusName = (typeof APPROVAL_STATUSES)[number];
export type CreateApprovalBody = Sent<typeof CREATE_APPROVAL_BODY_SCHEMA>;
export type AnswerBody = Sent<typeof ANSWER_BODY_SCHEMA>;
export type Answered = ResponseOf<typeof answerApproval, 200>;
/** A vote of an approval with approvers that did not decide it (202). */
export type VoteCounted = ResponseOf<typeof answerApproval, 202>;
export type DelegateBody = Sent<typeof DELEGATE_BODY_SCHEMA>;
export type DelegateByLinkBody = Sent<typeof DELEGATE_BY_LINK_BODY_SCHEMA>;
export type ApprovalPage = ResponseOf<typeof listApprovals, 200>;
export type ListApprovalsQuery = Sent<typeof listApprovals.query>;
export type GetApprovalQuery = Sent<typeof getApproval.query>;
export type AnswerLinkQuery = Sent<typeof CHOICE_QUERY>;
