import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import type { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';
import { failureCounter } from '../auth/auth-throttle.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { AdminError } from './json-api/admin-error.js';

// Failed admin authentications per source address per minute before 429.
export const ADMIN_FAILURES_PER_ADDRESS = 20;

/**
 * `Authorization: <token>` or `Bearer <token>`, compared in constant time (SHA-256 of both, then
 * timingSafeEqual, so length leaks nothing); failures are counted per source address in
 * PostgreSQL and answered 429 past the limit. Then `ApiVersion`: absent or v1.0.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer;
  private readonly failures: RateLimiterPostgres;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @InjectDataSource() dataSource: DataSource) {
    if (!config.adminToken) throw new Error('the admin interface needs an admin token');
    this.expected = digest(config.adminToken);
    this.failures = failureCounter(dataSource, 'admin', ADMIN_FAILURES_PER_ADDRESS);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const address = digest(request.ip ?? 'unknown').toString('base64url');
    const presented = parseAdminAuthorization(request.headers.authorization);
    const valid = presented !== undefined && timingSafeEqual(digest(presented), this.expected);
    if (!valid) {
      const state = await this.failures.get(address);
      if (state && state.consumedPoints >= ADMIN_FAILURES_PER_ADDRESS) throw tooMany(state);
      await this.failures.penalty(address, 1);
      throw new AdminError(401, 'unauthorized', 'a valid administrative token is required in the Authorization header');
    }
    const version = request.headers.apiversion;
    if (version !== undefined && version !== 'v1.0') {
      throw new AdminError(400, 'unsupported_api_version', `ApiVersion "${String(version).slice(0, 20)}" is not supported; use v1.0`);
    }
    return true;
  }
}

/** `Authorization: <token>` or `Bearer <token>` (docs/reference/admin-interface.md#headers); undefined for anything else. */
export function parseAdminAuthorization(header: string | undefined): string | undefined {
  return /^(?:Bearer +)?(\S+)$/i.exec(header ?? '')?.[1];
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function tooMany(state: RateLimiterRes): AdminError {
  const error = new AdminError(429, 'too_many_requests', 'too many failed administrative authentications; retry later');
  error.headers['Retry-After'] = String(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
  return error;
}
