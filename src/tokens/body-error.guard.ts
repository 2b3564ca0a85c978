import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { RequestWithBodyError } from './oauth-body.middleware.js';

/** Throws the body error the middleware kept, before client authentication looks at the body. */
@Injectable()
export class BodyErrorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const error = context.switchToHttp().getRequest<RequestWithBodyError>().oauthBodyError;
    if (error) throw error;
    return true;
  }
}
