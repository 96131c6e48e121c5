// The approvers directory: the people who may answer a user's approvals, with where each is asked,
// and named groups of them. An approval names them as "me", an approver's name, or "group:<name>".
// Writes change who may approve for the user, as a bundle's channels do, so they need `agents:write`;
// reads need `read`.
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { STRINGS, TIME } from './shared.ts';
import { APPROVER_NAME, GROUP_PREFIX, ME } from '../approvals.ts';

// Conflicts (409) past these, as webhook subscriptions are: the directory is small by nature, so fixed
// caps do, with no setting to raise them.
export const MAX_APPROVERS_PER_USER = 500;
export const MAX_APPROVER_GROUPS_PER_USER = 100;
export const MAX_GROUP_MEMBERS = 50;
export const MAX_WEBHOOK_URL_CHARS = 2048;

/** Slack user ids: U... for most, W... for Enterprise Grid users. */
export const SLACK_USER_ID_PATTERN = /^[UW][A-Z0-9]{2,20}$/;
/** Telegram chat ids: integers, negative for groups; kept as text. */
export const TELEGRAM_CHAT_ID_PATTERN = /^-?[0-9]{1,20}$/;

const NAME = { type: 'string', pattern: APPROVER_NAME.source } as const;

const ADDRESSES = {
  email: { type: 'string', format: 'email', maxLength: 254, description: 'Where the question is mailed' },
  slack: {
    type: 'object',
    additionalProperties: false,
    required: ['userId'],
    properties: { userId: { type: 'string', pattern: SLACK_USER_ID_PATTERN.source, description: 'A Slack user id (U... or W...)' } },
  },
  telegram: {
    type: 'object',
    additionalProperties: false,
    required: ['chatId'],
    properties: {
      chatId: {
        anyOf: [
          { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
          { type: 'string', pattern: TELEGRAM_CHAT_ID_PATTERN.source },
        ],
        description: 'A Telegram chat id, as a number or numeric text; answers carry it as text',
      },
    },
  },
  webhook: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: {
        type: 'string',
        maxLength: MAX_WEBHOOK_URL_CHARS,
        description: 'An http(s) URL the outbound guard allows (OUTBOUND_ALLOW_CIDRS), as for webhook subscriptions',
      },
    },
  },
} as const;

export const PUT_APPROVER_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'Every address is optional: an approver with none answers only through a link forwarded to them.',
  properties: ADDRESSES,
} as const;

export const APPROVER_SCHEMA = {
  type: 'object',
  required: ['name', 'groups', 'createdAt', 'updatedAt'],
  properties: {
    name: { type: 'string' },
    email: { type: 'string' },
    slack: { type: 'object', required: ['userId'], properties: { userId: { type: 'string' } } },
    telegram: { type: 'object', required: ['chatId'], properties: { chatId: { type: 'string' } } },
    webhook: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
    groups: { ...STRINGS, description: 'The groups it is a member of, by name' },
    createdAt: TIME,
    updatedAt: TIME,
  },
} as const;

export const PUT_APPROVER_GROUP_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['members'],
  properties: {
    members: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_GROUP_MEMBERS,
      uniqueItems: true,
      items: NAME,
      description: 'Names of your approvers, in the order they are asked',
    },
  },
} as const;

export const APPROVER_GROUP_SCHEMA = {
  type: 'object',
  required: ['name', 'members', 'createdAt', 'updatedAt'],
  properties: { name: { type: 'string' }, members: STRINGS, createdAt: TIME, updatedAt: TIME },
} as const;

const NAMES_RULE =
  `Names match ${APPROVER_NAME.source}; "${ME}" (the approval's own user) and names starting ` +
  `"${GROUP_PREFIX}" (how an approval names a group) are reserved.`;
const WRITE_SCOPE_WHY = "Needs `agents:write`: the directory decides who may approve for you, as a bundle's channels do.";

export const listApprovers = defineOperation({
  id: 'listApprovers',
  method: 'get',
  path: '/approver',
  summary: 'List the people who may answer your approvals',
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Your approvers by name',
      schema: { type: 'object', required: ['approvers'], properties: { approvers: { type: 'array', items: APPROVER_SCHEMA } } },
    },
  },
});

export const getApprover = defineOperation({
  id: 'getApprover',
  method: 'get',
  path: '/approver/{name}',
  summary: 'One approver, with its addresses and groups',
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'read' },
  responses: { 200: { description: 'The approver', schema: APPROVER_SCHEMA }, 404: { description: 'You have no approver of that name' } },
});

export const putApprover = defineOperation({
  id: 'putApprover',
  method: 'put',
  path: '/approver/{name}',
  summary: 'Add or replace an approver',
  description:
    `${NAMES_RULE} A replaced approver has exactly the addresses given; approvals already asked keep the addresses ` +
    `they were asked at. At most ${MAX_APPROVERS_PER_USER} approvers per user. ${WRITE_SCOPE_WHY}`,
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'agents:write' },
  body: { required: true, schema: PUT_APPROVER_BODY_SCHEMA },
  responses: {
    200: { description: 'Replaced', schema: APPROVER_SCHEMA },
    201: { description: 'Added', schema: APPROVER_SCHEMA },
    409: { description: `You already have ${MAX_APPROVERS_PER_USER} approvers` },
  },
});

export const deleteApprover = defineOperation({
  id: 'deleteApprover',
  method: 'delete',
  path: '/approver/{name}',
  summary: 'Remove an approver',
  description: `Refused while it is a member of a group: remove it from them first. ${WRITE_SCOPE_WHY}`,
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'agents:write' },
  responses: {
    204: { description: 'Removed' },
    404: { description: 'You have no approver of that name' },
    409: { description: 'It is a member of groups, which the problem names' },
  },
});

export const listApproverGroups = defineOperation({
  id: 'listApproverGroups',
  method: 'get',
  path: '/approver-group',
  summary: 'List your groups of approvers',
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Your groups by name',
      schema: { type: 'object', required: ['groups'], properties: { groups: { type: 'array', items: APPROVER_GROUP_SCHEMA } } },
    },
  },
});

export const getApproverGroup = defineOperation({
  id: 'getApproverGroup',
  method: 'get',
  path: '/approver-group/{name}',
  summary: 'One group of approvers',
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'read' },
  responses: { 200: { description: 'The group', schema: APPROVER_GROUP_SCHEMA }, 404: { description: 'You have no group of that name' } },
});

export const putApproverGroup = defineOperation({
  id: 'putApproverGroup',
  method: 'put',
  path: '/approver-group/{name}',
  summary: 'Create or replace a group of approvers',
  description:
    `${NAMES_RULE} An approval names it as "${GROUP_PREFIX}<name>". Members are 1 to ${MAX_GROUP_MEMBERS} distinct ` +
    `names of your approvers (one that is not is a 400 pointing at it). At most ${MAX_APPROVER_GROUPS_PER_USER} groups ` +
    `per user. ${WRITE_SCOPE_WHY}`,
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'agents:write' },
  body: { required: true, schema: PUT_APPROVER_GROUP_BODY_SCHEMA },
  responses: {
    200: { description: 'Replaced', schema: APPROVER_GROUP_SCHEMA },
    201: { description: 'Created', schema: APPROVER_GROUP_SCHEMA },
    409: { description: `You already have ${MAX_APPROVER_GROUPS_PER_USER} groups` },
  },
});

export const deleteApproverGroup = defineOperation({
  id: 'deleteApproverGroup',
  method: 'delete',
  path: '/approver-group/{name}',
  summary: 'Remove a group of approvers (its members stay)',
  description: `Approvals already asked keep the seats it gave them. ${WRITE_SCOPE_WHY}`,
  tag: 'approvals',
  auth: { kind: 'scope', scope: 'agents:write' },
  responses: { 204: { description: 'Removed' }, 404: { description: 'You have no group of that name' } },
});

export type PutApproverBody = Sent<typeof PUT_APPROVER_BODY_SCHEMA>;
export type ApproverView = Sent<typeof APPROVER_SCHEMA>;
export type ApproverList = ResponseOf<typeof listApprovers, 200>;
export type PutApproverGroupBody = Sent<typeof PUT_APPROVER_GROUP_BODY_SCHEMA>;
export type ApproverGroupView = Sent<typeof APPROVER_GROUP_SCHEMA>;
export type ApproverGroupList = ResponseOf<typeof listApproverGroups, 200>;
