import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { DpopProofs } from '../dpop-proofs.js';
import type { ProofRequest } from './client-auth.guard.js';

/**
 * The token endpoint's DPoP proof (docs/reference/token-endpoint.md#dpop-proofs), checked before
 * the client is authenticated, so that a request refused for its proof or its nonce does not use up
 * its client assertion. It marks the request as one that takes proofs: ClientAuthGuard then
 * refuses a DPoP-bound client without one, and uses the proof's jti up with the client's
 * authentication. Only the token route carries this guard (introspection and revocation take no
 * proof: a `DPoP` header there is ignored, as RFC 9449 defines proofs for the token endpoint).
 */
@Injectable()
export class DpopProofGuard implements CanActivate {
  constructor(private readonly proofs: DpopProofs) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ProofRequest>();
    request.takesProofs = true;
    if (request.headers.dpop !== undefined) request.dpop = await this.proofs.check(request.headers.dpop, request.method);
    return true;
  }
}
