import type { ToolServerList } from '../contract.ts';
import type { RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

/** The built-in tool servers an agent may enable in its bundle's `mcps`, with their tools. */
export class ToolServers extends Resource {
  list(options?: RequestOptions): Promise<ToolServerList> {
    return this.transport.json({ method: 'GET', path: '/mcps', idempotent: true }, options);
  }
}
