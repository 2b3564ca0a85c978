import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { AppConfig } from '../config/app-config.js';

/**
 * Defence in depth: request lines (request-log.ts) hold no body, no query string and no header
 * but User-Agent, and these paths are censored wherever an object reaches a log call.
 */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.headers.dpop',
  'res.headers["set-cookie"]',
  'authorization',
  'client_secret',
  'clientSecret',
  'access_token',
  'adminToken',
  'password',
  'client_assertion',
  'refresh_token',
  '*.authorization',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.adminToken',
  '*.password',
  '*.client_assertion',
  '*.refresh_token',
];

type LogSettings = Pick<AppConfig, 'logLevel' | 'logFormat'>;

/** The process's one logger: JSON lines, or pino-pretty (local time, context first) in a terminal. */
export function createRootLogger(settings: LogSettings, destination?: DestinationStream): Logger {
  const options = { level: settings.logLevel, timestamp: pino.stdTimeFunctions.isoTime, redact: { paths: REDACTED, censor: '[redacted]' } };
  if (destination) return pino(options, destination);
  if (settings.logFormat === 'pretty') {
    // Colours when the terminal supports them (and NO_COLOR is unset): pino-pretty's own detection.
    const stream = pretty({
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,context',
      messageFormat: '{if context}[{context}] {end}{msg}',
    });
    return pino(options, stream);
  }
  return pino(options, pino.destination({ dest: 1, sync: true }));
}
