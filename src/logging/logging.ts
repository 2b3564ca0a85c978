import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Options } from 'pino-http';
import type { AppConfig } from '../config/app-config.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// A caller's request id is kept when it is short and plain; anything else is replaced, so a
// client cannot inject text into log lines or grow them without bound.
const ACCEPTED_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * Defence in depth: the serializers below log no body, no query string and only harmless headers,
 * and these paths are censored wherever an object reaches a log call.
 */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'authorization',
  'client_secret',
  'clientSecret',
  'access_token',
  'adminToken',
  'password',
  '*.authorization',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.adminToken',
  '*.password',
];

type LogSettings = Pick<AppConfig, 'logLevel' | 'logFormat'>;

/** The process's one logger: JSON lines, or pino-pretty in a terminal. */
export function createRootLogger(settings: LogSettings, destination?: DestinationStream): Logger {
  const options = { level: settings.logLevel, timestamp: pino.stdTimeFunctions.isoTime, redact: { paths: REDACTED, censor: '[redacted]' } };
  if (destination) return pino(options, destination);
  if (settings.logFormat === 'pretty') return pino(options, pretty({ colorize: true, sync: true }));
  return pino(options, pino.destination({ dest: 1, sync: true }));
}

type LoggedRequest = { id: unknown; method: string; url: string; remoteAddress?: string; raw: IncomingMessage };

/** pino-http options: one line per finished request, with its id and no secret. */
export function httpLogOptions(logger: Logger): Options {
  return {
    logger,
    genReqId: requestIdOf,
    customLogLevel: (request, response, error) => {
      if (error || response.statusCode >= 500) return 'error';
      if (response.statusCode >= 400) return 'info';
      // The token endpoint's successes are its bulk: logged at debug, so that the default level
      // does not pay a write per token (the metrics count them).
      return request.url === '/oauth2/token' ? 'debug' : 'info';
    },
    autoLogging: { ignore: (request) => request.url === '/metrics' || (request.url ?? '').startsWith('/health/') },
    serializers: {
      req: (request: LoggedRequest) => ({
        id: request.id,
        method: request.method,
        // No query string: it is where a careless client would put a secret.
        url: request.url.split('?', 1)[0],
        remoteAddress: request.remoteAddress,
        userAgent: request.raw.headers['user-agent'],
      }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
  };
}

function requestIdOf(request: IncomingMessage, response: ServerResponse): string {
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && ACCEPTED_REQUEST_ID.test(given) ? given : randomUUID();
  response.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
