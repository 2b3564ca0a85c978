import { ArgumentsHost, Catch, HttpException, Logger, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../common/database-errors.js';
import { AdminError } from './json-api/admin-error.js';
import { sendJsonApi } from './json-api/send-json-api.js';

/** Errors of the admin interface as a JSON:API `{errors: […]}` document; never database text. */
@Catch()
export class AdminExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Admin');

  catch(exception: unknown, host: ArgumentsHost): void {
    const error = this.toAdminError(exception);
    sendJsonApi(host.switchToHttp().getResponse<Response>(), error.status, { errors: [error.toObject()] }, undefined, error.headers);
  }

  private toAdminError(exception: unknown): AdminError {
    if (exception instanceof AdminError) return exception;
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn(`database unavailable: ${(exception as Error).message}`);
      const error = new AdminError(503, 'temporarily_unavailable', 'the database cannot be reached; retry shortly');
      error.headers['Retry-After'] = String(DATABASE_RETRY_AFTER_SECONDS);
      return error;
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      return new AdminError(exception.getStatus(), 'http_error', exception.message);
    }
    this.logger.error(`unexpected failure: ${exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception)}`);
    return new AdminError(500, 'internal_error', 'the server met an unexpected condition');
  }
}
