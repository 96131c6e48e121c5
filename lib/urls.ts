import type { Config } from './config.ts';

/** Whether `raw` parses as an absolute http: or https: URL. */
export function isHttpUrl(raw: string): boolean {
  try {
    const { protocol } = new URL(raw);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Where people reach this service (links in messages): PUBLIC_BASE_URL, else the listening address. */
export function serviceBaseUrl(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>): string {
  return (config.publicBaseUrl ?? `http://${config.host}:${config.port}`).replace(/\/+$/, '');
}
