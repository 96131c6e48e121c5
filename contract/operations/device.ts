// Logging a device in (the CLI's `login`) with the OAuth device authorization grant (RFC 8628) in
// shape, in the API's camelCase JSON: the device asks for a code without a key, its user approves the
// short user code with a key of theirs, and the device polls until it receives a key of its own.
import { PROBLEM_SCHEMA } from '../problems.ts';
import { SCOPES } from '../scopes.ts';
import { createKey } from './keys.ts';
import { defineOperation, type Received, type ResponseOf, type Sent } from './operation.ts';
import { TIME } from './shared.ts';

/** Seconds a device waits between polls unless told to slow down (RFC 8628 §3.2's default). */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;

/** RFC 8628 §3.5: what a poll that gives no key answers, in the problem's `error` member. */
export const DEVICE_TOKEN_ERRORS = ['authorization_pending', 'slow_down', 'expired_token', 'access_denied', 'invalid_grant'] as const;
export type DeviceTokenErrorCode = (typeof DEVICE_TOKEN_ERRORS)[number];

export const DEVICE_AUTHORIZATION_STATUSES = ['pending', 'approved', 'denied'] as const;

/** `ABCD-EFGH`: upper-case letters without vowels (no words, nothing misread); case and dash do not matter. */
const USER_CODE = {
  type: 'string',
  description: 'Eight letters shown as ABCD-EFGH; accepted in any case, with or without the dash',
} as const;

const REQUEST_CODE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['clientName'],
  properties: {
    clientName: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: "Who asks, shown to the approving user and given to the key as its name (e.g. the machine's host name)",
    },
    scopes: {
      type: 'array',
      items: { enum: SCOPES },
      minItems: 1,
      uniqueItems: true,
      description: "The scopes the key should have. Default: the approving key's scopes but `admin`, which only a request naming it gets",
    },
  },
} as const;

const DEVICE_CODE_SCHEMA = {
  type: 'object',
  required: ['deviceCode', 'userCode', 'verificationUri', 'verificationUriComplete', 'expiresIn', 'interval'],
  properties: {
    deviceCode: { type: 'string', description: 'The secret the device polls with; keep it on the device' },
    userCode: { ...USER_CODE, description: 'What the user enters on the verification page (or `login approve <code>`)' },
    verificationUri: { type: 'string', description: 'The dashboard page where a logged-in user approves codes' },
    verificationUriComplete: { type: 'string', description: 'The same page with the user code filled in (`?code=`)' },
    expiresIn: { type: 'integer', description: 'Seconds until both codes expire (DEVICE_CODE_TTL_MS)' },
    interval: { type: 'integer', description: 'Seconds to wait between polls' },
  },
} as const;

const DEVICE_AUTHORIZATION_SCHEMA = {
  type: 'object',
  required: ['userCode', 'clientName', 'requestedFrom', 'requestedAt', 'scopes', 'status', 'expiresAt'],
  properties: {
    userCode: USER_CODE,
    clientName: { type: 'string' },
    requestedFrom: {
      type: ['string', 'null'],
      description: 'The client address the login was asked from (as the API saw it, behind TRUST_PROXY_HOPS proxies)',
    },
    requestedAt: { ...TIME, description: 'When the login was asked for' },
    scopes: {
      type: 'array',
      items: { enum: SCOPES },
      description:
        'The scopes the key gets: once approved, those granted; before, those asked for, or (none asked for) those of the calling key but `admin`',
    },
    status: { enum: DEVICE_AUTHORIZATION_STATUSES },
    expiresAt: TIME,
  },
} as const;

/** A problem document with the grant's `error` (absent only when the body itself is not valid). */
const DEVICE_TOKEN_PROBLEM_SCHEMA = {
  type: 'object',
  required: PROBLEM_SCHEMA.required,
  properties: {
    ...PROBLEM_SCHEMA.properties,
    error: {
      enum: DEVICE_TOKEN_ERRORS,
      description:
        'authorization_pending: not answered yet, poll again after `interval`. slow_down: polled sooner than the interval, ' +
        'which grows by 5 s from now on. expired_token: the codes expired, start again. access_denied: the user denied it. ' +
        'invalid_grant: no such device code, or its key was already handed out (a key is handed out once)',
    },
    interval: { type: 'integer', description: 'With slow_down: the seconds to wait between polls from now on' },
  },
} as const;

const NOT_FOUND = { description: 'No unexpired request with this user code' } as const;

export const requestDeviceCode = defineOperation({
  id: 'requestDeviceCode',
  method: 'post',
  path: '/device/code',
  summary: 'Start a device login: a device code to poll with and a user code to approve',
  description:
    'Needs no key; limited per client address (DEVICE_CODE_RATE_LIMIT_POINTS per RATE_LIMIT_WINDOW_SECONDS). Both codes ' +
    'expire after `expiresIn` seconds (DEVICE_CODE_TTL_MS, 10 minutes by default). Show the user code and the verification ' +
    'URI to the user, then poll POST /device/token every `interval` seconds.',
  tag: 'device',
  auth: { kind: 'public' },
  body: { required: true, schema: REQUEST_CODE_BODY_SCHEMA },
  responses: { 200: { description: 'The codes', schema: DEVICE_CODE_SCHEMA } },
});

export const pollDeviceToken = defineOperation({
  id: 'pollDeviceToken',
  method: 'post',
  path: '/device/token',
  summary: 'Poll for the key of an approved device login',
  description:
    'Needs no key. Once the user approved, answers a new API key of the approving user exactly as POST /key does, ' +
    'named after `clientName`, and only once: the next poll answers `invalid_grant`. Until then a 400 problem whose ' +
    '`error` says why (RFC 8628 §3.5).',
  tag: 'device',
  auth: { kind: 'public' },
  body: {
    required: true,
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['deviceCode'],
      properties: { deviceCode: { type: 'string', minLength: 1, maxLength: 200 } },
    },
  },
  responses: {
    200: { description: 'The new key, shown once', schema: createKey.responses[201].schema },
    400: {
      description: 'No key (yet): `error` says why; or the body is not valid (`errors` points at each problem, no `error`)',
      schema: DEVICE_TOKEN_PROBLEM_SCHEMA,
    },
  },
});

export const getDeviceAuthorization = defineOperation({
  id: 'getDeviceAuthorization',
  method: 'get',
  path: '/device/{userCode}',
  summary: 'See what a device login asks for, before approving it',
  tag: 'device',
  auth: { kind: 'scope', scope: 'read' },
  responses: { 200: { description: 'The request', schema: DEVICE_AUTHORIZATION_SCHEMA }, 404: NOT_FOUND },
});

export const approveDeviceAuthorization = defineOperation({
  id: 'approveDeviceAuthorization',
  method: 'post',
  path: '/device/{userCode}/approve',
  summary: 'Approve a device login: its next poll receives a new key of yours',
  description:
    "The key gets the scopes asked for, or without any the calling key's; a scope the calling key lacks is refused (403), " +
    'as with POST /key. Works once: a request already approved or denied is 409.',
  tag: 'device',
  auth: { kind: 'scope', scope: 'keys:write' },
  responses: {
    200: { description: 'Approved', schema: DEVICE_AUTHORIZATION_SCHEMA },
    404: NOT_FOUND,
    409: { description: 'Already approved or denied' },
  },
});

export const denyDeviceAuthorization = defineOperation({
  id: 'denyDeviceAuthorization',
  method: 'post',
  path: '/device/{userCode}/deny',
  summary: 'Deny a device login: its polls answer access_denied',
  tag: 'device',
  auth: { kind: 'scope', scope: 'keys:write' },
  responses: {
    200: { description: 'Denied', schema: DEVICE_AUTHORIZATION_SCHEMA },
    404: NOT_FOUND,
    409: { description: 'Already approved or denied' },
  },
});

export type RequestDeviceCodeBody = Sent<typeof REQUEST_CODE_BODY_SCHEMA>;
export type DeviceCode = ResponseOf<typeof requestDeviceCode, 200>;
export type DeviceAuthorization = ResponseOf<typeof getDeviceAuthorization, 200>;
export type DeviceAuthorizationStatus = (typeof DEVICE_AUTHORIZATION_STATUSES)[number];
/** A poll's 400: a problem document with the grant's `error`. */
export type DeviceTokenProblem = Received<typeof DEVICE_TOKEN_PROBLEM_SCHEMA>;
