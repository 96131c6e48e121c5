// The official A2A SDK's client of an agent, as an A2A client application makes it: found from the
// agent's card, every request signed with a key; and a message to send, in the SDK's own types.
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { Message, SendMessageRequest } from '@a2a-js/sdk';
import { call } from './request.ts';
import type { AgentEnv } from '../harness/agent-env.ts';
import { createTestUser } from '../harness/users.ts';

export /** The SDK's client of the agent, found from its A2A URL's card, signing every request with `key`. */
async function clientOf(env: AgentEnv, agent: string, key = env.user.apiKey): Promise<Client> {
  const { body } = await call<{ a2aUrl: string }>(`${env.api.url}/agent/${agent}`, { headers: env.user.auth });
  const signed: typeof fetch = (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${key}`);
    return fetch(url, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: signed })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: signed }),
    preferredTransports: ['JSONRPC'],
  });
  return new ClientFactory(options).createFromUrl(body.a2aUrl);
}

export function request(text: string, extra: Partial<Message> = {}, returnImmediately = false): SendMessageRequest {
  return {
    tenant: '',
    message: {
      messageId: crypto.randomUUID(),
      contextId: '',
      taskId: '',
      role: 1,
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
      ...extra,
    },
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  };
}

/**
 * The client of another user who deployed an agent of the same name: agent names are per user, so the
 * A2A URL is the same, and only the key tells the two apart.
 */
export async function strangerWithSameAgent(env: AgentEnv, name: string): Promise<Client> {
  const other = await createTestUser(env.api.db);
  const deployed = await call<{ ok: boolean }>(`${env.api.url}/deploy`, {
    headers: other.auth,
    json: { name, model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
  });
  if (!deployed.body.ok) throw new Error(`the stranger's deploy failed: ${deployed.text}`);
  return clientOf(env, name, other.apiKey);
}
