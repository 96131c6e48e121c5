// A corpus of bundles, valid and invalid, each with the exact list of error paths it must produce
// (in order), or for valid ones the defaults and warnings that must come out.
import { describe, expect, it } from 'vitest';
import { validateBundle, type Bundle } from '../../lib/bundle/index.ts';

interface Case {
  name: string;
  text: string;
  /** Keys of the secrets that exist for the deploying user. */
  secrets?: string[];
  /** Ids of remote MCP servers the deploying user registered. */
  registered?: string[];
  /** Invalid bundles: the exact error paths, in order. */
  errors?: string[];
  /** Optional matchers for the messages, aligned with `errors`. */
  messages?: (string | RegExp | undefined)[];
  /** Valid bundles: compared with toEqual when `exact`, else with toMatchObject. */
  bundle?: Partial<Bundle>;
  exact?: boolean;
  /** Valid bundles: the exact warnings. */
  warnings?: string[];
}

const MODEL = `"model": { "providerId": "openrouter", "modelId": "anthropic/claude-sonnet-4" }`;
/** A minimal valid bundle with `extra` members appended. */
const withBase = (extra = '') => `{ "name": "demo", ${MODEL}${extra ? `, ${extra}` : ''} }`;

const DEFAULTS = {
  skills: [],
  customTools: [],
  workspaceFiles: {},
  mcps: [],
  triggers: [],
  strictSecrets: false,
  secretGrants: [],
  userChannels: [],
  workflows: {},
};

const FULL = `\uFEFF// service.jsonc: every field of the bundle
{
  "$schema": "https://agent-service.dev/schema/bundle.json",
  "name": "support-bot",
  "model": { "providerId": "openrouter", "modelId": "~anthropic/claude-sonnet-latest" },
  "instructions": "You answer support questions.",
  "skills": [
    "summarize",
    { "name": "faq", "path": "docs/faq.md" },
    { "name": "style", "url": "https://example.com/skills/style.md" },
  ],
  "customTools": [
    {
      "id": "lookup_order",
      "description": "Looks up an order",
      "parameters": { "type": "object", "properties": { "orderId": { "type": "string" } }, "required": ["orderId"] },
    },
  ],
  "workspaceFiles": { "docs/faq.md": "# FAQ", ".env.example": "A=1", "skills/summarize/SKILL.md": "Summarize briefly." },
  "mcps": ["time", "workspace"],
  "triggers": [
    { "kind": "webhook", "suffix": "inbound-mail", "workflow": "triage" },
    { "kind": "webhook" },
    { "kind": "cron", "expression": "0 9 * * MON-FRI", "timezone": "Europe/Paris", "message": "Morning digest" },
    { "kind": "cron", "expression": "@hourly" },
  ],
  "strictSecrets": true,
  "secretGrants": ["SLACK_TOKEN", "OPENROUTER_API_KEY"],
  "jsonReply": { "schema": { "type": "object" }, "defaults": { "lang": "en" } },
  "command": {
    "review": { "template": "Review \${1} with focus on \${2}", "agent": "reviewer", "model": { "providerId": "anthropic", "modelId": "claude-sonnet-4" }, "subtask": true },
  },
  "userChannels": [
    { "provider": "slack", "config": { "token": "{{secrets.SLACK_TOKEN}}", "channel": "C123" } },
    { "provider": "email", "config": { "host": "smtp.example.com", "from": "bot@example.com", "to": "me@example.com", "replyAddress": "ok@in.example.com" }, "answerVia": "reply" },
  ],
  "workflows": {
    "triage": {
      "start": "draft",
      "nodes": {
        "draft": { "type": "agent", "prompt": "Draft an answer", "next": "check" },
        "check": {
          "type": "approval",
          "question": "Send the drafted answer to the customer?",
          "options": ["send", "revise", "drop"],
          "next": { "send": "done", "revise": "draft", "drop": "done" },
          "expiresInMs": 86400000,
          "onExpired": "done",
        },
        "done": { "type": "end" },
      },
    },
  },
}
`;

const cases: Case[] = [
  // ---- valid bundles ----
  {
    name: 'minimal bundle gets every default',
    text: withBase(),
    bundle: { name: 'demo', model: { providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4' }, ...DEFAULTS },
    exact: true,
    warnings: [],
  },
  {
    name: 'full bundle with BOM, comments and trailing commas',
    text: FULL,
    secrets: ['SLACK_TOKEN', 'OPENROUTER_API_KEY'],
    bundle: {
      name: 'support-bot',
      jsonReply: { schema: { type: 'object' }, defaults: { lang: 'en' }, retries: 2, allowSubtasks: true },
      userChannels: [
        {
          provider: 'slack',
          config: { token: '{{secrets.SLACK_TOKEN}}', channel: 'C123' },
          answerVia: 'signed-url',
        },
        {
          provider: 'email',
          config: { host: 'smtp.example.com', from: 'bot@example.com', to: 'me@example.com', replyAddress: 'ok@in.example.com' },
          answerVia: 'reply',
        },
      ],
    },
    warnings: [],
  },
  {
    name: 'comment markers inside strings stay string content',
    text: `{
      "name": "demo", ${MODEL},
      "instructions": "see http://example.com // not a comment /* nor this */ end",
      /* a real comment with "quotes" and // inside */
      "workspaceFiles": { "a.txt": "/* keep */", "b.txt": "// keep", "c.txt": "*/" } // trailing comment
    }`,
    bundle: {
      instructions: 'see http://example.com // not a comment /* nor this */ end',
      workspaceFiles: { 'a.txt': '/* keep */', 'b.txt': '// keep', 'c.txt': '*/' },
    },
    warnings: [],
  },
  {
    name: '$schema is accepted and dropped',
    text: `{ "$schema": "./bundle.schema.json", "name": "demo", ${MODEL} }`,
    bundle: { name: 'demo', model: { providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4' }, ...DEFAULTS },
    exact: true,
    warnings: [],
  },
  {
    name: 'CRLF line endings and a BOM',
    text: `\uFEFF{\r\n  // comment\r\n  "name": "demo",\r\n  ${MODEL},\r\n}\r\n`,
    bundle: { name: 'demo' },
    warnings: [],
  },
  {
    name: 'jsonReply defaults are applied, explicit values kept',
    text: withBase(`"jsonReply": { "schema": { "type": "object" }, "retries": 0, "allowSubtasks": false }`),
    bundle: { jsonReply: { schema: { type: 'object' }, retries: 0, allowSubtasks: false } },
    warnings: [],
  },
  {
    name: 'a missing secret is a warning without strictSecrets',
    text: withBase(`"secretGrants": ["PRESENT", "ABSENT"]`),
    secrets: ['PRESENT'],
    bundle: { secretGrants: ['PRESENT', 'ABSENT'], strictSecrets: false },
    warnings: ['/secretGrants/1: secret "ABSENT" does not exist yet; the agent cannot read it until it is set'],
  },
  {
    name: 'unreachable nodes and options without next are warnings',
    text: withBase(`"workflows": { "flow": { "start": "ask", "nodes": {
      "ask": { "type": "approval", "question": "Go on?", "options": ["yes", "no"], "next": { "yes": "work" } },
      "work": { "type": "agent", "prompt": "Do it" },
      "orphan": { "type": "end" },
      "island": { "type": "agent", "prompt": "Never", "next": "orphan" }
    } } }`),
    warnings: [
      '/workflows/flow/nodes/ask/next: option "no" has no next node; choosing it ends the workflow',
      '/workflows/flow/nodes/orphan: is not reachable from the start node "ask"',
      '/workflows/flow/nodes/island: is not reachable from the start node "ask"',
    ],
  },
  {
    name: 'cron macros, names and time zone aliases',
    text: withBase(`"triggers": [
      { "kind": "cron", "expression": "@weekly", "timezone": "UTC" },
      { "kind": "cron", "expression": "*/5 8-18 * jan-jun 1-5", "timezone": "US/Eastern" },
      { "kind": "cron", "expression": "0 0 1 * *", "timezone": "America/Argentina/Buenos_Aires" }
    ]`),
    warnings: [],
  },
  {
    name: 'a 2020-12 tool schema and a draft-07 reply schema with $ref',
    text: withBase(`"customTools": [{ "id": "t", "description": "d", "parameters": {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "properties": { "pair": { "type": "array", "prefixItems": [{ "type": "string" }, { "type": "number" }] } } } }],
      "jsonReply": { "schema": { "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "definitions": { "s": { "type": "string" } }, "properties": { "a": { "$ref": "#/definitions/s" } } } }`),
    warnings: [],
  },
  {
    name: 'the same $id in two tool schemas does not collide',
    text: withBase(`"customTools": [
      { "id": "a", "description": "d", "parameters": { "$id": "https://example.com/p", "type": "object" } },
      { "id": "b", "description": "d", "parameters": { "$id": "https://example.com/p", "type": "object" } }
    ]`),
    warnings: [],
  },

  // ---- JSONC syntax and parse problems ----
  {
    // A value that is neither branch of a oneOf (a word, or an object) is one error at its place, in words.
    name: 'a tool policy that is no policy, and a team rule out of its bounds',
    text: withBase(
      `"mcps": ["time", "http"], "toolPolicies": { "time": { "*": "sometimes" }, ` +
        `"http": { "http_request": { "ask": { "approvers": ["me", "Alice"], "quorum": "some" } } } }`,
    ),
    errors: ['/toolPolicies/time/*', '/toolPolicies/http/http_request/ask/quorum'],
    messages: ['must be one of "always", "ask", "never"', 'must be an integer or "all"'],
  },
  {
    name: "a team policy's names and a graph node's rule are checked as an approval's",
    text: withBase(
      `"mcps": ["http"], "toolPolicies": { "http": { "http_request": { "ask": { "approvers": ["me", "Alice"] } } } }, ` +
        `"workflows": { "w": { "start": "a", "nodes": { "a": { "type": "approval", "question": "q", "options": ["red", "blue"], ` +
        `"next": {}, "approvers": ["me", "bob"], "denyWins": true } } } }`,
    ),
    errors: ['/toolPolicies/http/http_request/ask/approvers/1', '/workflows/w/nodes/a/denyWins'],
    messages: [/is not "me", an approver's name/, /needs an option that refuses/],
  },
  { name: 'empty text', text: '', errors: [''], messages: ['the bundle is empty: expected a JSON object'] },
  { name: 'only a BOM, whitespace and comments', text: '\uFEFF  // nothing\n/* here */\n', errors: [''], messages: [/is empty/] },
  { name: 'top-level array', text: '[1, 2]', errors: [''], messages: ['the bundle must be a JSON object, not an array'] },
  { name: 'top-level string', text: '"demo"', errors: [''], messages: ['the bundle must be a JSON object, not a string'] },
  { name: 'top-level null', text: 'null', errors: [''], messages: ['the bundle must be a JSON object, not null'] },
  {
    name: 'missing comma names its line and column',
    text: `{\n  "name": "demo"\n  ${MODEL}\n}`,
    errors: [''],
    messages: ["line 3, column 3: expected ','"],
  },
  {
    name: 'columns are counted after the BOM',
    text: '\uFEFF{"name": x}',
    errors: ['', ''],
    messages: ['line 1, column 10: unexpected "x"', 'line 1, column 11: expected a value'],
  },
  {
    name: 'every syntax error is reported',
    text: `{\n  "name": 'demo',\n  "model": { "providerId": "openai" "modelId": "x" }\n}`,
    errors: ['', '', ''],
    messages: [/^line 2, column 11: unexpected "'demo'"/, /^line 2, column 17/, /^line 3, column 37: expected ','$/],
  },
  {
    name: 'an unclosed block comment',
    text: `{ "name": "demo", ${MODEL} }\n/* never closed`,
    errors: [''],
    messages: ['line 2, column 1: a block comment is not closed'],
  },
  {
    name: 'an unclosed string',
    text: '{\n"name": "demo',
    errors: ['', ''],
    messages: ['line 2, column 9: a string is not closed', /^line 2/],
  },
  {
    name: 'content after the document',
    text: `${withBase()} {}`,
    errors: [''],
    messages: [/unexpected content after the end of the document/],
  },
  {
    name: 'a raw control character inside a string',
    text: `{ "name": "demo", ${MODEL}, "instructions": "a\u0001b" }`,
    errors: [''],
    messages: [/control characters must be escaped inside strings/],
  },
  {
    name: 'nesting deeper than the limit',
    text: withBase(`"jsonReply": { "schema": { "type": "object" }, "defaults": { "d": ${'['.repeat(70)}${']'.repeat(70)} } }`),
    errors: [''],
    messages: [/nested deeper than 64 levels/],
  },
  {
    name: 'an array beyond the per-collection limit stops before the schema',
    text: withBase(`"mcps": [${'"x",'.repeat(1000)}"x"], "foo": 1`),
    errors: ['/mcps'],
    messages: ['has 1001 items; a bundle allows at most 1000 in any one array'],
  },
  {
    name: 'an object beyond the per-collection limit, deep inside free-form content',
    text: withBase(
      `"jsonReply": { "schema": { "type": "object", "properties": { ${Array.from({ length: 1001 }, (_, i) => `"p${i}": {}`).join(', ')} } } }`,
    ),
    errors: ['/jsonReply/schema/properties'],
    messages: ['has 1001 properties; a bundle allows at most 1000 in any one object'],
  },
  {
    name: 'duplicate top-level key',
    text: `{\n  "name": "demo",\n  "name": "other",\n  ${MODEL}\n}`,
    errors: ['/name'],
    messages: ['duplicate key "name" (first given at line 2, column 3)'],
  },
  {
    name: 'duplicate nested key',
    text: `{ "name": "demo", "model": { "providerId": "openai", "modelId": "a", "modelId": "b" } }`,
    errors: ['/model/modelId'],
  },
  {
    name: 'a __proto__ key stays data and is refused',
    text: withBase(`"jsonReply": { "schema": { "type": "object" }, "defaults": { "__proto__": { "polluted": true } } }`),
    errors: ['/jsonReply/defaults/__proto__'],
    messages: ['the key "__proto__" is not allowed'],
  },
  {
    name: 'NUL characters and unpaired surrogates',
    text: withBase(`"instructions": "a\\u0000b", "workspaceFiles": { "x.txt": "\\ud800" }`),
    errors: ['/instructions', '/workspaceFiles/x.txt'],
    messages: [/NUL/, /unpaired surrogate/],
  },
  {
    name: 'a number beyond a double',
    text: withBase(`"jsonReply": { "schema": { "type": "object" }, "defaults": { "n": 1e400 } }`),
    errors: ['/jsonReply/defaults/n'],
    messages: ['number is too large'],
  },

  {
    name: 'channel credentials written in clear text are refused, each at its place; references pass',
    secrets: ['SLACK_SIGNING'],
    text: withBase(`"secretGrants": ["SLACK_SIGNING"], "userChannels": [
      { "provider": "slack", "config": { "token": "xoxb-1-2", "channel": "C1", "signingSecret": "{{secrets.SLACK_SIGNING}}" } },
      { "provider": "telegram", "config": { "botToken": "123:abc", "chatId": 42, "secretToken": "s3cret" } },
      { "provider": "email", "config": { "host": "smtp.example.com", "from": "a@example.com", "to": "b@example.com", "pass": "hunter2" } },
      { "provider": "webhook", "config": { "url": "https://example.com/hook", "secret": "whsec_AAAAAAAAAAAAAAAAAAAAAA==" } }
    ]`),
    errors: [
      '/userChannels/0/config/token',
      '/userChannels/1/config/botToken',
      '/userChannels/1/config/secretToken',
      '/userChannels/2/config/pass',
      '/userChannels/3/config/secret',
    ],
    messages: [/^is a credential, so it must be a \{\{secrets\.KEY\}\} reference/],
  },

  // ---- schema errors ----
  { name: 'name and model missing', text: '{}', errors: ['/name', '/model'], messages: ['is required', 'is required'] },
  {
    name: 'unknown properties at several levels',
    text: withBase(`"foo": 1, "jsonReply": { "schema": {}, "extra": true }`).replace('"modelId"', '"temperature": 1, "modelId"'),
    errors: ['/foo', '/model/temperature', '/jsonReply/extra'],
    messages: [
      /^is not a known property; known properties here: \$schema, name, model/,
      /known properties here: providerId, modelId$/,
      undefined,
    ],
  },
  {
    name: 'names that are not URL-safe',
    text: `{ "name": "My Agent", ${MODEL} }`,
    errors: ['/name'],
    messages: ['must match the pattern ^[a-z0-9][a-z0-9_-]{0,62}$'],
  },
  { name: 'a name of 64 characters', text: `{ "name": "${'a'.repeat(64)}", ${MODEL} }`, errors: ['/name'] },
  {
    name: 'model fields of the wrong type skip the provider check',
    text: `{ "name": "demo", "model": { "providerId": 7, "modelId": "" } }`,
    errors: ['/model/providerId', '/model/modelId'],
    messages: ['must be a string', 'must not be empty'],
  },
  {
    name: 'a model that is not an object',
    text: `{ "name": "demo", "model": "gpt" }`,
    errors: ['/model'],
    messages: ['must be an object'],
  },
  {
    name: 'an unknown provider',
    text: `{ "name": "demo", "model": { "providerId": "mistral", "modelId": "x" } }`,
    errors: ['/model/providerId'],
    messages: ['unknown provider "mistral"; use one of openrouter, openai, anthropic, openai-compatible'],
  },
  {
    name: 'skills of every wrong form',
    text: withBase(`"skills": [5, "", { "name": "a" }, { "name": "b", "path": "x.md", "url": "https://x" }, { "name": "c", "url": "ftp://x" },
      { "name": "d", "url": "https://x", "size": 1 }, { "path": "x.md" }, "ok"], "workspaceFiles": { "x.md": "" }`),
    errors: ['/skills/0', '/skills/1', '/skills/2', '/skills/3', '/skills/4/url', '/skills/5/size', '/skills/6/name'],
    messages: [
      'must be a string or an object',
      'must not be empty',
      'must have exactly one of "path" or "url"',
      'must have exactly one of "path" or "url"',
      'must match the pattern ^https?://',
      'is not a known property; known properties here: name, path, url',
      'is required',
    ],
  },
  {
    name: 'a skill path that is not a workspace file',
    text: withBase(
      `"skills": [{ "name": "a", "path": "docs/a.md" }, { "name": "b", "path": "docs/b.md" }], "workspaceFiles": { "docs/a.md": "" }`,
    ),
    errors: ['/skills/1/path'],
    messages: ['"docs/b.md" is not a key of workspaceFiles'],
  },
  {
    name: 'custom tools with missing fields and a bad id',
    text: withBase(`"customTools": [{ "id": "t" }, { "id": "has space", "description": "d", "parameters": [] }]`),
    errors: ['/customTools/0/description', '/customTools/0/parameters', '/customTools/1/id', '/customTools/1/parameters'],
    messages: ['is required', 'is required', /must match the pattern/, 'must be an object'],
  },
  {
    name: 'custom tool ids: duplicate and built-in',
    text: withBase(`"customTools": [
      { "id": "search", "description": "d", "parameters": {} },
      { "id": "search", "description": "d", "parameters": {} },
      { "id": "ask_my_user", "description": "d", "parameters": {} }
    ]`),
    errors: ['/customTools/1/id', '/customTools/2/id'],
    messages: ['duplicates the id of /customTools/0', '"ask_my_user" is the name of a built-in tool'],
  },
  {
    name: 'tool parameters that do not compile',
    text: withBase(`"customTools": [
      { "id": "a", "description": "d", "parameters": { "type": "strng" } },
      { "id": "b", "description": "d", "parameters": { "$ref": "#/definitions/missing" } },
      { "id": "c", "description": "d", "parameters": { "type": "string", "pattern": "(" } },
      { "id": "d", "description": "d", "parameters": { "$schema": "http://json-schema.org/draft-04/schema#" } }
    ]`),
    errors: ['/customTools/0/parameters', '/customTools/1/parameters', '/customTools/2/parameters', '/customTools/3/parameters'],
    messages: [
      /^is not a valid JSON Schema: \/type must be equal to one of the allowed values \(array, boolean, integer, null, number, object, string\)$/,
      /^does not compile as a JSON Schema: can't resolve reference #\/definitions\/missing/,
      /^has a pattern the service cannot run: error parsing regexp: missing closing \)/,
      /\$schema must name draft-07 or draft 2020-12/,
    ],
  },
  {
    name: 'tool servers: duplicate and unknown',
    text: withBase(`"mcps": ["time", "time", "browser"]`),
    errors: ['/mcps/1', '/mcps/2'],
    messages: [
      'duplicates item 0',
      /^unknown tool server "browser"; built-in tool servers: time, workspace, http, memory.*\(PUT \/mcp\/<id> registers/,
    ],
  },
  {
    name: 'tool servers: a registered remote one is accepted, an unregistered one is named beside yours',
    text: withBase(`"mcps": ["time", "linear", "github"]`),
    registered: ['linear', 'jira'],
    errors: ['/mcps/2'],
    messages: [/^unknown tool server "github"; built-in tool servers: .*; yours: jira, linear \(PUT/],
  },
  {
    name: 'a custom tool named like a tool of an enabled server',
    text: withBase(`"mcps": ["memory", "http"], "customTools": [
      { "id": "remember", "description": "d", "parameters": { "type": "object" } },
      { "id": "http_request", "description": "d", "parameters": { "type": "object" } },
      { "id": "current_time", "description": "time is not enabled", "parameters": { "type": "object" } }
    ]`),
    errors: ['/customTools/0/id', '/customTools/1/id'],
    messages: ['"remember" is a tool of the enabled tool server "memory"', '"http_request" is a tool of the enabled tool server "http"'],
  },
  {
    name: 'triggers without a usable kind',
    text: withBase(`"triggers": [{}, { "kind": "email" }, { "kind": 3 }, "cron", null]`),
    errors: ['/triggers/0/kind', '/triggers/1/kind', '/triggers/2/kind', '/triggers/3', '/triggers/4'],
    messages: [
      'is required: one of "webhook", "cron"',
      'must be one of "webhook", "cron"',
      'must be one of "webhook", "cron"',
      'must be an object',
      'must be an object',
    ],
  },
  {
    name: 'errors of a trigger speak of its own kind only',
    text: withBase(`"triggers": [{ "kind": "webhook", "expression": "* * * * *" }, { "kind": "cron", "suffix": "x" }]`),
    errors: ['/triggers/0/expression', '/triggers/1/expression', '/triggers/1/suffix'],
    messages: [
      'is not a known property; known properties here: kind, suffix, workflow',
      'is required',
      'is not a known property; known properties here: kind, expression, timezone, message, workflow',
    ],
  },
  {
    name: 'bad cron expressions and time zones',
    text: withBase(`"triggers": [
      { "kind": "cron", "expression": "0 25 * * *" },
      { "kind": "cron", "expression": "@every 5m", "timezone": "Mars/Olympus" },
      { "kind": "cron", "expression": "* * * * * *", "timezone": "europe/paris" },
      { "kind": "cron", "expression": "0 0 * * *", "timezone": "+01:00" }
    ]`),
    errors: [
      '/triggers/0/expression',
      '/triggers/1/expression',
      '/triggers/1/timezone',
      '/triggers/2/expression',
      '/triggers/2/timezone',
      '/triggers/3/timezone',
    ],
    messages: [
      'hour field "25": 25 is out of range 0-23',
      /unknown macro "@every 5m"/,
      '"Mars/Olympus" is not an IANA time zone such as Europe/Paris or UTC',
      /expected 5 fields .* got 6 fields/,
      '"europe/paris" is spelled "Europe/Paris"',
      /not an IANA time zone/,
    ],
  },
  {
    name: 'an overlong cron expression gets only the schema error',
    text: withBase(`"triggers": [{ "kind": "cron", "expression": "${'1,'.repeat(200)}1 * * * *" }]`),
    errors: ['/triggers/0/expression'],
    messages: ['must be at most 256 characters long'],
  },
  {
    name: 'webhook suffixes: pattern and duplicate; a trigger workflow that does not exist',
    text: withBase(`"triggers": [
      { "kind": "webhook", "suffix": "in" },
      { "kind": "webhook", "suffix": "in" },
      { "kind": "webhook", "suffix": "a/b" },
      { "kind": "cron", "expression": "@daily", "workflow": "nightly" }
    ], "workflows": { "daily": { "start": "e", "nodes": { "e": { "type": "end" } } } }`),
    errors: ['/triggers/2/suffix', '/triggers/1/suffix', '/triggers/3/workflow'],
    messages: [
      /must match the pattern/,
      'duplicates the suffix of /triggers/0: both would have the same URL',
      '"nightly" is not a workflow of this bundle (daily)',
    ],
  },
  {
    name: 'strictSecrets turns a missing secret into an error',
    text: withBase(`"strictSecrets": true, "secretGrants": ["HERE", "GONE"]`),
    secrets: ['HERE'],
    errors: ['/secretGrants/1'],
    messages: ['secret "GONE" does not exist; set it first (PUT /secret/GONE) or turn strictSecrets off'],
  },
  {
    name: 'secret grants: bad key and duplicate',
    text: withBase(`"strictSecrets": true, "secretGrants": ["A", "A", "not-a-key", "9LIVES"]`),
    secrets: ['A'],
    errors: ['/secretGrants/2', '/secretGrants/3', '/secretGrants/1'],
  },
  {
    name: 'user channels of the wrong shape',
    text: withBase(`"userChannels": [
      { "provider": "sms", "config": {} },
      { "provider": "slack" },
      { "provider": "slack", "config": { "nested": { "a": 1 }, "list": [1], "bad key": "x" }, "answerVia": "link" }
    ]`),
    errors: [
      '/userChannels/0/provider',
      '/userChannels/1/config',
      '/userChannels/2/config/bad key',
      '/userChannels/2/config/nested',
      '/userChannels/2/config/list',
      '/userChannels/2/answerVia',
    ],
    messages: [
      'must be one of "webhook", "slack", "telegram", "email"',
      'is required',
      /^is not an allowed name: must match the pattern/,
      'must be a string, a number or a boolean',
      'must be a string, a number or a boolean',
      'must be one of "reply", "signed-url"',
    ],
  },
  {
    name: 'channel references to secrets that are not granted',
    text: withBase(`"secretGrants": ["BOT"], "userChannels": [{ "provider": "slack", "config": {
      "token": "{{secrets.BOT}}", "signingSecret": "{{ secrets.SIGNING }}", "channel": "{{secrets.A}}-{{secrets.B}}" } },
      { "provider": "webhook", "config": { "url": "{{secrets.}}" } }]`),
    errors: ['/userChannels/0/config/signingSecret', '/userChannels/0/config/channel', '/userChannels/1/config/url'],
    messages: [
      'references "SIGNING", not in secretGrants; grant it to use it here',
      'references "A", "B", not in secretGrants; grant them to use them here',
      'malformed secret reference {{secrets.}}',
    ],
  },
  {
    name: 'jsonReply of the wrong shape',
    text: withBase(`"jsonReply": { "retries": 11, "allowSubtasks": "yes" }`),
    errors: ['/jsonReply/schema', '/jsonReply/retries', '/jsonReply/allowSubtasks'],
    messages: ['is required', 'must be <= 10', 'must be a boolean'],
  },
  {
    name: 'jsonReply retries must be a whole number',
    text: withBase(`"jsonReply": { "schema": {}, "retries": 1.5 }`),
    errors: ['/jsonReply/retries'],
    messages: ['must be an integer'],
  },
  {
    name: 'a reply schema that does not compile',
    text: withBase(`"jsonReply": { "schema": { "type": "object", "required": "a" } }`),
    errors: ['/jsonReply/schema'],
    messages: [/^is not a valid JSON Schema: \/required must be array/],
  },
  {
    name: 'commands of the wrong shape',
    text: withBase(`"command": {
      "Review": { "template": "x" },
      "ship": {},
      "test": { "template": "t", "model": { "providerId": "openai" }, "extra": 1 },
      "fix": { "template": "t", "model": { "providerId": "groq", "modelId": "m" }, "agent": "Bad Agent" }
    }`),
    errors: [
      '/command/Review',
      '/command/ship/template',
      '/command/test/extra',
      '/command/test/model/modelId',
      '/command/fix/agent',
      '/command/fix/model/providerId',
    ],
    messages: [
      /^is not an allowed name: must match the pattern/,
      'is required',
      /not a known property/,
      'is required',
      /must match the pattern/,
      /unknown provider "groq"/,
    ],
  },
  {
    name: 'workflow graphs with broken references',
    text: withBase(`"workflows": {
      "w": { "start": "begin", "nodes": {
        "a": { "type": "agent", "prompt": "p", "next": "nowhere" },
        "b": { "type": "approval", "question": "q", "options": ["yes", "no"], "next": { "yes": "a", "maybe": "a", "no": "gone" }, "onExpired": "lost" },
        "c": { "type": "end" }
      } }
    }`),
    errors: [
      '/workflows/w/start',
      '/workflows/w/nodes/a/next',
      '/workflows/w/nodes/b/next/maybe',
      '/workflows/w/nodes/b/next/no',
      '/workflows/w/nodes/b/onExpired',
    ],
    messages: [
      '"begin" is not a node of workflow "w"',
      '"nowhere" is not a node of workflow "w"',
      '"maybe" is not one of the options (yes, no)',
      '"gone" is not a node of workflow "w"',
      '"lost" is not a node of workflow "w"',
    ],
  },
  {
    name: 'approval node options follow the rules of every approval',
    text: withBase(`"workflows": {
      "w": { "start": "a", "nodes": {
        "a": { "type": "approval", "question": "q", "options": ["yes", "YES"], "next": {} },
        "b": { "type": "approval", "question": "q", "options": ["1", "2"], "next": {} },
        "c": { "type": "approval", "question": "q", "options": [" yes", "no"], "next": {} }
      } }
    }`),
    errors: ['/workflows/w/nodes/a/options', '/workflows/w/nodes/b/options', '/workflows/w/nodes/c/options'],
    messages: [
      'Option "YES" is given twice (options are compared ignoring case).',
      'Option "1" is a bare number; replies name options by number, so use words.',
      'option " yes" has surrounding spaces',
    ],
  },
  {
    name: 'prompts and questions may only refer to nodes of their workflow',
    text: withBase(`"workflows": {
      "w": { "start": "a", "nodes": {
        "a": { "type": "agent", "prompt": "Go on from {{ nodes.b.choice }} and {{input}}", "next": "b" },
        "b": { "type": "approval", "question": "Keep {{nodes.a.output}}? {{nodes.draft.output}} {{nodes.x.note}}", "options": ["yes"], "next": { "yes": "c" } },
        "c": { "type": "end" }
      } }
    }`),
    errors: ['/workflows/w/nodes/b/question'],
    messages: ['refers to "draft", "x", not a node of workflow "w"'],
  },
  {
    name: 'workflow nodes of the wrong shape',
    text: withBase(`"workflows": {
      "w": { "start": "a", "nodes": {
        "a": { "type": "loop" },
        "b": { "type": "end", "next": "a" },
        "c": { "type": "approval", "question": "", "options": [], "next": {}, "expiresInMs": 10 },
        "d": { "type": "approval", "question": "q", "options": ["x", "x"], "next": { "x": "a" } },
        "e": { "prompt": "p" }
      } },
      "bad name": { "start": "s" }
    }`),
    errors: [
      '/workflows/bad name',
      '/workflows/w/nodes/a/type',
      '/workflows/w/nodes/b/next',
      '/workflows/w/nodes/c/question',
      '/workflows/w/nodes/c/options',
      '/workflows/w/nodes/c/expiresInMs',
      '/workflows/w/nodes/d/options/1',
      '/workflows/w/nodes/e/type',
      '/workflows/bad name/nodes',
    ],
    messages: [
      /^is not an allowed name/,
      'must be one of "agent", "approval", "end"',
      'is not a known property; known properties here: type',
      'must not be empty',
      'must have at least 1 item',
      'must be >= 1000',
      'duplicates item 0',
      'is required: one of "agent", "approval", "end"',
      'is required',
    ],
  },
  {
    name: 'workspace files: unsafe paths and a wrong value type',
    text: withBase(`"workspaceFiles": { "../etc/passwd": "x", "/abs": "x", "a//b": "x", "ok/./x": "x", "good/file.md": 5 }`),
    errors: [
      '/workspaceFiles/..~1etc~1passwd',
      '/workspaceFiles/~1abs',
      '/workspaceFiles/a~1~1b',
      '/workspaceFiles/ok~1.~1x',
      '/workspaceFiles/good~1file.md',
    ],
    messages: [
      /^is not an allowed name/,
      /^is not an allowed name/,
      /^is not an allowed name/,
      /^is not an allowed name/,
      'must be a string',
    ],
  },
  {
    name: 'workspace files above 512 KiB in total',
    text: withBase(`"workspaceFiles": { "a.txt": "${'a'.repeat(300 * 1024)}", "b.txt": "${'é'.repeat(120 * 1024)}" }`),
    errors: ['/workspaceFiles'],
    messages: ['holds 552960 bytes of content in all; the limit is 524288 bytes (512 KiB)'],
  },
  {
    name: 'arrays and maps of the wrong type',
    text: withBase(`"skills": {}, "mcps": "time", "triggers": null, "workspaceFiles": [], "strictSecrets": "yes", "workflows": []`),
    errors: ['/skills', '/workspaceFiles', '/mcps', '/triggers', '/strictSecrets', '/workflows'],
    messages: ['must be an array', 'must be an object', 'must be an array', 'must be an array', 'must be a boolean', 'must be an object'],
  },
  {
    name: 'independent errors in different parts are all reported',
    text: `{ "name": "x", "model": { "providerId": "nope", "modelId": "m" }, "extra": 1,
      "mcps": ["shell"], "triggers": [{ "kind": "cron", "expression": "bad" }], "secretGrants": ["S"], "strictSecrets": true }`,
    errors: ['/extra', '/model/providerId', '/mcps/0', '/secretGrants/0', '/triggers/0/expression'],
  },
  {
    name: 'a flood of errors is cut short',
    text: `{ "name": "demo", ${MODEL}, ${Array.from({ length: 150 }, (_, i) => `"x${i}": 1`).join(', ')} }`,
    errors: [...Array.from({ length: 100 }, (_, i) => `/x${i}`), ''],
    messages: [...Array.from({ length: 100 }, () => undefined), 'and 50 more errors'],
  },
];

describe('bundle corpus', () => {
  it('has enough cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(45);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = validateBundle(c.text, {
      existingSecretKeys: new Set(c.secrets ?? []),
      registeredToolServers: new Set(c.registered ?? []),
    });
    if (c.errors) {
      expect(result.ok, JSON.stringify(result)).toBe(false);
      if (result.ok) return;
      expect(result.errors.map((error) => error.path)).toEqual(c.errors);
      c.messages?.forEach((matcher, index) => {
        if (matcher === undefined) return;
        const message = result.errors[index]?.message ?? '';
        if (typeof matcher === 'string') expect(message).toBe(matcher);
        else expect(message).toMatch(matcher);
      });
      return;
    }
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    if (c.bundle) {
      if (c.exact) expect(result.bundle).toEqual(c.bundle);
      else expect(result.bundle).toMatchObject(c.bundle);
    }
    expect(result.bundle).not.toHaveProperty('$schema');
    expect(result.warnings).toEqual(c.warnings ?? []);
  });
});
