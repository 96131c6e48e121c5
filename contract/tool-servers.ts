// The built-in tool servers a bundle enables by id in `mcps`, and the tools each one gives the model:
// names, descriptions and input schemas as data. The worker implements each tool by name
// (activities/tools/), deploy refuses a custom tool that takes one of these names, and GET /mcps
// publishes this list, so what a client reads, what a deploy checks and what the model is told agree.
import type { JsonObject } from './bundle.ts';
import type { BUILTIN_TOOL_SERVERS } from './bundle-constants.ts';

export type ToolServerId = (typeof BUILTIN_TOOL_SERVERS)[number];

export interface ToolServerTool {
  name: string;
  description: string;
  /** A draft-07 JSON Schema object; a call's input is checked against it before the tool runs. */
  inputSchema: JsonObject;
}

export interface ToolServer {
  id: string;
  description: string;
  tools: readonly ToolServerTool[];
}

/** Bytes of a workspace file one read returns; the rest is cut, with a note. */
export const WORKSPACE_READ_BYTES = 64 * 1024;

/** Limits of the `memory` server, per agent. */
export const MEMORY_LIMITS = { notes: 200, keyChars: 100, valueBytes: 4096 } as const;

/** Limits of the `http` server, per request. */
export const HTTP_TOOL_LIMITS = { responseBytes: 64 * 1024, requestBodyBytes: 64 * 1024, timeoutMs: 15_000, headers: 20 } as const;

/**
 * Limits of the `code` server, per script: its run time, its engine's heap, what it may print and
 * return (each cut at `outputBytes` of UTF-8, with a note), and the length of its source.
 */
export const CODE_TOOL_LIMITS = { timeMs: 5000, memoryBytes: 32 * 1024 * 1024, outputBytes: 64 * 1024, codeChars: 100_000 } as const;

const TIME: ToolServer = {
  id: 'time',
  description: 'The current date and time in any time zone.',
  tools: [
    {
      name: 'current_time',
      description: 'Get the current date and time. Give an IANA time zone (e.g. "Europe/Paris", "America/New_York"); the default is UTC.',
      inputSchema: {
        type: 'object',
        properties: { timezone: { type: 'string', description: 'IANA time zone name, e.g. "Asia/Tokyo". Defaults to "UTC".' } },
        additionalProperties: false,
      },
    },
  ],
};

const WORKSPACE: ToolServer = {
  id: 'workspace',
  description: "Read the files the agent's bundle ships in `workspaceFiles` (read-only).",
  tools: [
    {
      name: 'list_workspace_files',
      description: "List the files in the agent's workspace, with their sizes in bytes.",
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    },
    {
      name: 'read_workspace_file',
      description: `Read a text file from the agent's workspace by its path (as listed by list_workspace_files). Files over ${WORKSPACE_READ_BYTES / 1024} KiB are cut short.`,
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string', description: 'The file path, e.g. "docs/guide.md".' } },
        required: ['path'],
        additionalProperties: false,
      },
    },
  ],
};

const HTTP: ToolServer = {
  id: 'http',
  description:
    'Fetch a URL (GET or POST) and read the text answer. Header values may use {{secrets.KEY}} of secrets granted to the agent; ' +
    'they are filled in by the service and never shown to the model.',
  tools: [
    {
      name: 'http_request',
      description:
        'Send an HTTP GET or POST request and read the response status, content type and text body ' +
        `(cut after ${HTTP_TOOL_LIMITS.responseBytes / 1024} KiB). A header value may contain {{secrets.KEY}} to use a secret granted to this agent ` +
        '(for example "Authorization": "Bearer {{secrets.API_TOKEN}}"); you never see its value. Redirects are not followed.',
      inputSchema: {
        type: 'object',
        properties: {
          url: { type: 'string', description: 'An absolute http or https URL.' },
          method: { enum: ['GET', 'POST'], description: 'Defaults to GET.' },
          headers: {
            type: 'object',
            additionalProperties: { type: 'string' },
            maxProperties: HTTP_TOOL_LIMITS.headers,
            description: 'Request headers. Values may contain {{secrets.KEY}}.',
          },
          body: { type: 'string', description: 'The request body, for POST (e.g. JSON text).' },
        },
        required: ['url'],
        additionalProperties: false,
      },
    },
  ],
};

const MEMORY: ToolServer = {
  id: 'memory',
  description: `Notes the agent keeps across all its sessions: remember, recall, forget and list (at most ${MEMORY_LIMITS.notes} notes of ${MEMORY_LIMITS.valueBytes} bytes each).`,
  tools: [
    {
      name: 'remember',
      description: 'Store a note under a short key, for this and every later conversation. The same key again replaces the note.',
      inputSchema: {
        type: 'object',
        properties: {
          key: { type: 'string', minLength: 1, maxLength: MEMORY_LIMITS.keyChars, description: 'A short name, e.g. "user.timezone".' },
          value: { type: 'string', description: `The note (at most ${MEMORY_LIMITS.valueBytes} bytes).` },
        },
        required: ['key', 'value'],
        additionalProperties: false,
      },
    },
    {
      name: 'recall',
      description: 'Read the note stored under a key.',
      inputSchema: {
        type: 'object',
        properties: { key: { type: 'string', minLength: 1, maxLength: MEMORY_LIMITS.keyChars } },
        required: ['key'],
        additionalProperties: false,
      },
    },
    {
      name: 'forget',
      description: 'Delete the note stored under a key.',
      inputSchema: {
        type: 'object',
        properties: { key: { type: 'string', minLength: 1, maxLength: MEMORY_LIMITS.keyChars } },
        required: ['key'],
        additionalProperties: false,
      },
    },
    {
      name: 'list_memories',
      description: 'List the keys of all stored notes, newest first, with the start of each note.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    },
  ],
};

const CODE: ToolServer = {
  id: 'code',
  description:
    'Run JavaScript in a WebAssembly sandbox (QuickJS): console output and a result, read-only access to the workspace files, ' +
    'no network and nothing of the host.',
  tools: [
    {
      name: 'run_javascript',
      description:
        'Run JavaScript (QuickJS, ES2023) and read what it printed with console.log and its result: the value of the last ' +
        'expression (e.g. `rows.length`), or, when the code uses top-level `return` or `await`, the value it returns (a promise ' +
        "is awaited). The result should be JSON-like. `workspace.list()` gives the agent's workspace files as [{path, bytes}] and " +
        '`workspace.read(path)` the text of one. There is nothing else: no network, no file system, no require, import, process, ' +
        'fetch or timers, and nothing is kept between calls. ' +
        `Limits: ${CODE_TOOL_LIMITS.timeMs / 1000} s of run time, ${CODE_TOOL_LIMITS.memoryBytes / 2 ** 20} MiB of memory, ` +
        `${CODE_TOOL_LIMITS.outputBytes / 1024} KiB of printed output and ${CODE_TOOL_LIMITS.outputBytes / 1024} KiB of result; ` +
        'a script past one is stopped with an error.',
      inputSchema: {
        type: 'object',
        properties: {
          code: { type: 'string', minLength: 1, maxLength: CODE_TOOL_LIMITS.codeChars, description: 'The JavaScript to run.' },
        },
        required: ['code'],
        additionalProperties: false,
      },
    },
  ],
};

/** By id; typed by BUILTIN_TOOL_SERVERS, so a server added to that list must be described here. */
const BY_ID: Record<ToolServerId, ToolServer> = { time: TIME, workspace: WORKSPACE, http: HTTP, memory: MEMORY, code: CODE };

/** Every built-in tool server, in the order GET /mcps lists them. */
export const TOOL_SERVERS: readonly ToolServer[] = Object.values(BY_ID);

/** The server of this id, if there is one. */
export function toolServer(id: string): ToolServer | undefined {
  return Object.hasOwn(BY_ID, id) ? BY_ID[id as ToolServerId] : undefined;
}
