import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * Nest's routine start-up chatter (every module initialised, every route mapped): debug, so that
 * info shows the lines an operator needs (ports, admin token, data, documentation).
 */
const ROUTINE_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Nest's own messages (start-up, Logger calls in services) as pino lines with their context. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write(context !== undefined && ROUTINE_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }

  error(message: unknown, stackOrContext?: string, context?: string): void {
    this.write('error', message, context ?? stackOrContext);
  }

  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }

  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }

  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }

  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', message: unknown, context?: string): void {
    if (!this.logger.isLevelEnabled(level)) return;
    if (message instanceof Error) this.logger[level]({ context, err: { type: message.name, message: message.message } }, message.message);
    else if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}
