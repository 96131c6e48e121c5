// Structured logs. Anything that could carry a credential is redacted at the logger, so a careless
// log call cannot leak one.
import { pino, type Logger } from 'pino';

export type { Logger };

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'authorization',
  'apiKey',
  'key',
  'secret',
  'value',
  'password',
  'token',
  '*.apiKey',
  '*.key',
  '*.secret',
  '*.value',
  '*.password',
  '*.token',
];

export function createLogger(options: { level: string; name?: string }, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: options.level,
      name: options.name,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
