// Sends the Temporal SDK's own log lines (worker lifecycle, activity failures) through pino so the
// worker writes one structured log.
import type { Logger as TemporalLogger, LogLevel, LogMetadata } from '@temporalio/common';
import type { Logger } from './logger.ts';

export function temporalLogger(logger: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const method =
      level === 'TRACE' ? 'trace' : level === 'DEBUG' ? 'debug' : level === 'INFO' ? 'info' : level === 'WARN' ? 'warn' : 'error';
    logger[method](meta ?? {}, message);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}
