import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { DirectClientAuthGuard } from '../auth/guards/client-auth.guard.js';
import { PatAuthenticator } from './pat-authenticator.js';

/**
 * Who calls introspection: a client authenticated as at the token endpoint (its Basic credentials
 * decided without passport's per-request machinery, as there), or (FedAuthz §5) a
 * data source's umaClient presenting its PAT as `Bearer` (or `DPoP` with a proof). Either way
 * `request.user` is the calling client.
 */
@Injectable()
export class IntrospectionCallerGuard implements CanActivate {
  constructor(
    private readonly clientAuth: DirectClientAuthGuard,
    private readonly pats: PatAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!PatAuthenticator.presentsToken(request)) return this.clientAuth.canActivate(context);
    request.user = (await this.pats.authenticate(request)).client;
    return true;
  }
}
