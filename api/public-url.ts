import type { Request } from 'express';
import type { Config } from '../lib/config.ts';

/** The base of links given to people: PUBLIC_BASE_URL, else the address this request came to. */
export function publicBaseUrl(config: Config, req: Request): string {
  return (config.publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? `${config.host}:${config.port}`}`).replace(/\/+$/, '');
}
