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
export function serviceBaseUrl(config: { publicBaseUrl: string | undefined; host: string; port: number }): string {
  return (config.publicBaseUrl ?? `http://${config.host}:${config.port}`).replace(/\/+$/, '');
}
