import { All, applyDecorators, Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiConsumes, ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ClientAuthGuard, DirectClientAuthGuard, type ProofRequest } from '../auth/guards/client-auth.guard.js';
import { DpopProofGuard } from '../auth/guards/dpop-proof.guard.js';
import { DpopProofs } from '../auth/dpop-proofs.js';
import type { ClientRecord } from '../clients/client-record.js';
import { OAuthExceptionFilter } from '../http/oauth-exception.filter.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { requestIdOf } from '../logging/request-log.js';
import { OAuthBodyGuard } from './oauth-body.guard.js';
import { ApiIntrospectionEndpoint, ApiRevocationEndpoint, ApiTokenEndpoint } from './tokens.openapi.js';
import { TokenLifecycleService } from './token-lifecycle.service.js';
import { TokensService } from './tokens.service.js';
import type { Confirmation } from './access-token-issuer.js';
import type { TokenParameters } from '../oauth/token-request.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { IntrospectionCallerGuard } from '../uma/introspection-caller.guard.js';

/**
 * An /oauth2/* endpoint: its own strict body parsing, then client authentication (basic, post or
 * private_key_jwt) by the guards given: the token endpoint checks a DPoP proof first.
 */
function ClientAuthenticated(...guards: (typeof ClientAuthGuard | typeof DpopProofGuard)[]): MethodDecorator {
  return applyDecorators(
    ApiBasicAuth('client_secret_basic'),
    ApiConsumes('application/x-www-form-urlencoded', 'application/json'),
    UseGuards(OAuthBodyGuard, ...guards),
  );
}

@ApiTags('oauth2')
@Controller('oauth2')
@UseFilters(OAuthExceptionFilter)
export class TokensController {
  constructor(
    private readonly tokens: TokensService,
    private readonly lifecycle: TokenLifecycleService,
    private readonly metrics: MetricsService,
    private readonly proofs: DpopProofs,
  ) {}

  @Post('token')
  @ApiTokenEndpoint()
  @ClientAuthenticated(DpopProofGuard, DirectClientAuthGuard)
  async token(@Req() request: ProofRequest, @Res() response: Response): Promise<void> {
    const issued = await this.tokens.issue(request.user as ClientRecord, request.body as TokenParameters, confirmationOf(request), requestIdOf(request));
    // docs/reference/token-endpoint.md#dpop-proofs: with DPOP_NONCE on, every token response carries a fresh nonce.
    sendNoStoreJson(response, 200, issued, this.proofs.noncesRequired ? { 'DPoP-Nonce': await this.proofs.freshNonce() } : undefined);
    this.metrics.tokenIssued();
  }

  /** RFC 7662. */
  @Post('introspect')
  @ApiIntrospectionEndpoint()
  // docs/guides/uma.md: a data source may also authenticate with its PAT (Authorization: Bearer).
  @ApiBasicAuth('client_secret_basic')
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @UseGuards(OAuthBodyGuard, IntrospectionCallerGuard)
  async introspect(@Req() request: Request, @Res() response: Response): Promise<void> {
    sendNoStoreJson(response, 200, await this.lifecycle.introspect(request.user as ClientRecord, request.body as TokenParameters));
  }

  /** RFC 7009: 200 with an empty body. */
  @Post('revoke')
  @ApiRevocationEndpoint()
  @ClientAuthenticated(ClientAuthGuard)
  async revoke(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.lifecycle.revoke(request.user as ClientRecord, request.body as TokenParameters);
    sendNoStoreJson(response, 200, {});
  }

  /** Any other method on the three endpoints: 405 with `Allow: POST`, in the OAuth error format (never the framework's 404). */
  @All(['token', 'introspect', 'revoke'])
  @ApiExcludeEndpoint()
  otherMethod(@Req() request: Request): never {
    throw OAuthError.methodNotAllowed(request.method, 'POST');
  }
}

/** What the access token is bound to: the DPoP proof's key, or a certificate-bound client's certificate (never both, ClientAuthGuard). */
function confirmationOf(request: ProofRequest): Confirmation | undefined {
  if (request.dpop !== undefined) return { jkt: request.dpop.jkt };
  if (request.certificateThumbprint !== undefined) return { 'x5t#S256': request.certificateThumbprint };
  return undefined;
}
