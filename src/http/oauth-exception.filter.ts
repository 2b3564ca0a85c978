import { ArgumentsHost, Catch, HttpException, Logger, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MetricsService } from '../metrics/metrics.service.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../common/database-errors.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { markRefusal, refusalLog } from '../logging/refusal-log.js';
import { noteFailedCheck } from '../logging/request-log.js';

/**
 * Answers every error of an /oauth2/* route as RFC 6749 §5.2 `{error, error_description}` with
 * the no-store headers. Unknown failures are logged (message only) and answered with a fixed
 * text; a database that says "not now" is 503 temporarily_unavailable with Retry-After.
 * Refusals that protect the server (429, the slow-hash bound's 503) go to RefusalLog; the check
 * behind an invalid_client goes to the request's log line.
 */
@Catch()
export class OAuthExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('OAuth');

  constructor(private readonly metrics: MetricsService) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const error = this.toOAuthError(exception);
    if (host.switchToHttp().getRequest<Request>().path === '/oauth2/token') this.metrics.tokenRefused(error.code);
    if (error.refusal) {
      // A refusal that protects the server: one warn line a second per client and reason, not one per request.
      refusalLog.note(error.refusal.clientId, error.refusal.reason);
      markRefusal(response);
    }
    // One description for every invalid_client; the request's log line says which check failed.
    if (error.failedCheck !== undefined) noteFailedCheck(response, error.failedCheck);
    sendNoStoreJson(response, error.status, { error: error.code, error_description: error.description }, error.headers);
  }

  private toOAuthError(exception: unknown): OAuthError {
    if (exception instanceof OAuthError) return exception;
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn(`database unavailable: ${describe(exception)}`);
      return OAuthError.temporarilyUnavailable('the authorization server cannot reach its database; retry shortly', DATABASE_RETRY_AFTER_SECONDS);
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      const status = exception.getStatus();
      if (status === 401) return OAuthError.invalidClient(exception.message, false);
      return new OAuthError('invalid_request', exception.message).withStatus(status);
    }
    this.logger.error(`unexpected failure: ${describe(exception)}`);
    return new OAuthError('server_error', 'the authorization server met an unexpected condition');
  }
}

function describe(exception: unknown): string {
  return exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception);
}
