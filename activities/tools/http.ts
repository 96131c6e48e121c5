// The `http` tool server: the agent fetches a URL through the outbound guard (private addresses
// refused unless OUTBOUND_ALLOW_CIDRS allows them, no redirects, a deadline, a bounded answer). Header
// values may name the agent's granted secrets as {{secrets.KEY}}, each sent only to the hosts its
// owner allowed (lib/secret-hosts.ts): they are filled in here, inside the activity, so the model, the tool.call event and Temporal's history only ever hold the reference;
// a secret value the answer echoes back is masked before the model or the tool.result event sees it.
import { HTTP_TOOL_LIMITS } from '../../contract/tool-servers.ts';
import { secretReferences, substituteSecrets } from '../../lib/channel-config.ts';
import { OutboundRequestError, outboundErrorText } from '../../lib/outbound.ts';
import { defineBuiltinTool, toolError } from './define.ts';
import { secretHostRefusal } from '../../lib/secret-hosts.ts';
import { secretMasker } from '../../lib/secret-mask.ts';
import { utf8Prefix } from './utf8.ts';

interface HttpInput {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** Answers shown to the model as text; anything else is described, not decoded. */
const TEXT_TYPES = /^(text\/|application\/([\w.+-]*\+)?(json|xml)\b|application\/(javascript|x-www-form-urlencoded|yaml|x-yaml)\b)/i;

export const httpRequest = defineBuiltinTool<HttpInput>('http', 'http_request', async (input, context) => {
  const agent = context.agent;
  if (!agent) throw new Error('the http server needs the agent it runs for');
  const method = input.method ?? 'GET';
  if (method === 'GET' && input.body !== undefined) return toolError('A GET request has no body; use POST to send one.');
  if (input.body !== undefined && Buffer.byteLength(input.body, 'utf8') > HTTP_TOOL_LIMITS.requestBodyBytes) {
    return toolError(`The request body is over ${HTTP_TOOL_LIMITS.requestBodyBytes} bytes.`);
  }

  const declared = input.headers ?? {};
  const opened = await agent.grantedSecrets(secretReferences(declared));
  if (opened.size > 0) {
    const refused = secretHostRefusal(opened, input.url);
    if (refused) return toolError(refused);
  }
  const secrets = new Map([...opened].map(([name, secret]) => [name, secret.value]));
  let headers: Record<string, string>;
  try {
    headers = Object.fromEntries(Object.entries(substituteSecrets(declared, secrets, 'headers')).map(([k, v]) => [k, String(v)]));
  } catch (error) {
    return toolError(`${(error as Error).message}. Only secrets granted to this agent (secretGrants) can be used.`);
  }
  const mask = secretMasker(secrets);
  // The receiver can do the request's effect once: every attempt of this call sends the same key. A key
  // the model chose itself is left alone.
  if (context.idempotencyKey && !Object.keys(headers).some((name) => name.toLowerCase() === 'idempotency-key')) {
    headers['Idempotency-Key'] = context.idempotencyKey;
  }

  let response;
  try {
    response = await agent.outbound.request(input.url, {
      method,
      headers,
      ...(input.body !== undefined ? { body: input.body } : {}),
      timeoutMs: HTTP_TOOL_LIMITS.timeoutMs,
      // One byte more than is shown tells whether the answer was cut.
      maxBodyBytes: HTTP_TOOL_LIMITS.responseBytes + 1,
    });
  } catch (error) {
    if (error instanceof OutboundRequestError || (error as NodeJS.ErrnoException).code !== undefined) {
      return toolError(mask(`The request failed: ${outboundErrorText(error)}`));
    }
    throw error;
  }
  const contentType = String(response.headers['content-type'] ?? '');
  const bytes = Buffer.from(response.bodySnippet, 'utf8');
  const truncated = bytes.length > HTTP_TOOL_LIMITS.responseBytes;
  const isText = contentType === '' || TEXT_TYPES.test(contentType);
  return {
    output: {
      status: response.status,
      contentType: contentType || null,
      body: isText ? mask(utf8Prefix(bytes, HTTP_TOOL_LIMITS.responseBytes)) : null,
      ...(isText ? {} : { note: `The answer is ${contentType}, not text; its body is not shown.` }),
      ...(isText && truncated ? { truncated: true, note: `Only the first ${HTTP_TOOL_LIMITS.responseBytes} bytes are shown.` } : {}),
    },
    isError: false,
  };
});
