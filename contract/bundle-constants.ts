// The closed lists and limits a bundle is checked against. They live in code, not in the schema,
// because they grow with the service (new providers, new tool servers) while the published schema
// stays a stable description of the bundle's shape.

/** Model providers a bundle may name. */
export const PROVIDER_IDS = ['openrouter', 'openai', 'anthropic', 'openai-compatible'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** Built-in tool servers a bundle may enable in `mcps`. */
export const BUILTIN_TOOL_SERVERS = ['time', 'workspace', 'http', 'memory', 'code'] as const;

/** Tools the service gives agents (ask_my_user to all, load_skill to those with skills); a custom tool may not take their names. */
export const BUILTIN_TOOL_NAMES = ['ask_my_user', 'load_skill'] as const;

/** Channel providers of approvals. */
export const CHANNEL_PROVIDERS = ['webhook', 'slack', 'telegram', 'email'] as const;

/** Secret keys: the form of an environment variable, so `{{secrets.KEY}}` is unambiguous. */
export const SECRET_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * A secret reference in a channel's config: `{{secrets.KEY}}`, spaces allowed inside the braces. It
 * captures any name, so a deploy can call a malformed one malformed; only a name that matches
 * SECRET_KEY_PATTERN is ever replaced.
 */
export const SECRET_REFERENCE = /\{\{\s*secrets\.([^{}\s]*)\s*\}\}/g;

/** Sum of all workspaceFiles contents, in UTF-8 bytes. */
export const MAX_WORKSPACE_BYTES = 512 * 1024;

/**
 * Deepest nesting of arrays and objects in a bundle. The JSONC parser recurses, so without a bound
 * a megabyte of '[' would overflow the stack; real bundles (tool schemas included) stay far below.
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * Most entries of any one array or object. Every bound of the schema is lower (500 at most), so
 * this only limits free-form content (tool schemas, reply defaults); it exists because ajv's cost
 * with allErrors grows faster than linearly with the number of errors, and a megabyte of "5," in
 * one array would otherwise keep the process busy for seconds.
 */
export const MAX_COLLECTION_ENTRIES = 1000;

/** More errors than this are summarised in one last entry, so garbage input gets a short answer. */
export const MAX_REPORTED_ERRORS = 100;

/** A host a secret may be sent to in tool headers: an exact name (or IPv4 address), or `*.` and a domain for its subdomains. */
export const SECRET_HOST_PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
export const MAX_SECRET_HOSTS = 20;
