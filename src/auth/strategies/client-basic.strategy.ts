import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import passport from 'passport';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { BasicStrategy } from 'passport-http';
import { ClientAuthenticator } from '../client-authenticator.js';
import { parseBasicAuthorization } from '../../oauth/basic-credentials.js';
import type { ClientRecord } from '../../clients/client-record.js';
import { OAuthError } from '../../oauth/oauth-error.js';
import type { TokenParameters } from '../../oauth/token-request.js';

export const CLIENT_BASIC = 'client-basic';

type PassportActions = {
  error(error: unknown): void;
  success(user: ClientRecord): void;
  fail(status: number): void;
  _verify(request: Request, clientId: string, clientSecret: string, done: (error: unknown, client?: ClientRecord) => void): void;
};

function invalidHeader(): OAuthError {
  return OAuthError.invalidClient('the Authorization header is not valid HTTP Basic client authentication', true);
}

/**
 * `client_secret_basic` through passport-http. passport-http's own header parsing keeps only
 * the text up to a second colon, accepts any base64 and does not form-urldecode (RFC 6749
 * §2.3.1 requires it), so `authenticate` parses strictly and hands the result to `validate`.
 */
let instances = 0;

@Injectable()
export class ClientBasicStrategy extends PassportStrategy(BasicStrategy, CLIENT_BASIC) implements OnModuleDestroy {
  /**
   * passport keeps strategies in one process-wide registry by name: two applications in one
   * process (tests start several instances) would otherwise share whichever registered last.
   * Each instance also registers under a name of its own, which ClientAuthGuard has passport run.
   */
  readonly instanceName = `${CLIENT_BASIC}-${(instances += 1)}`;

  constructor(private readonly authenticator: ClientAuthenticator) {
    super({ passReqToCallback: true, realm: 'oauth2' });
    passport.use(this.instanceName, this);
  }

  onModuleDestroy(): void {
    passport.unuse(this.instanceName);
  }

  override authenticate(request: Request): void {
    // passport adds these actions to the strategy instance per request.
    const actions = this as unknown as PassportActions;
    const credentials = parseBasicAuthorization(request.headers.authorization ?? '');
    if (!credentials) return actions.error(invalidHeader());
    actions._verify(request, credentials.clientId, credentials.clientSecret, (error, client) =>
      error ? actions.error(error) : client ? actions.success(client) : actions.fail(401),
    );
  }

  /**
   * What `authenticate` decides, without passport's per-request machinery (a strategy object,
   * five closures, a promise in AuthGuard): DirectClientAuthGuard calls this on the token path, where
   * that machinery cost 30-60 µs of CPU per token, of 120-140 (docs/design-decisions.md, "Performance of the token path").
   */
  async clientOf(request: Request): Promise<ClientRecord> {
    const credentials = parseBasicAuthorization(request.headers.authorization ?? '');
    if (!credentials) throw invalidHeader();
    return this.validate(request, credentials.clientId, credentials.clientSecret);
  }

  async validate(request: Request, clientId: string, clientSecret: string): Promise<ClientRecord> {
    const body = request.body as TokenParameters;
    if (body.client_id !== undefined && body.client_id !== clientId) {
      throw new OAuthError('invalid_request', 'client_id in the body differs from the authenticated client');
    }
    return this.authenticator.authenticate({
      clientId,
      clientSecret,
      method: 'client_secret_basic',
      sourceAddress: request.ip ?? 'unknown',
    });
  }
}
