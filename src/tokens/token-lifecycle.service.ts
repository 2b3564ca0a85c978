import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ClientRecord } from '../clients/client-record.js';
import { AccessTokenVerifier } from '../keys/access-token-verifier.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { RefreshTokensService } from './refresh-tokens.service.js';
import type { TokenParameters } from '../oauth/token-request.js';
import { DataSourceDirectory } from '../tickets/data-source-directory.js';
import { isRpt } from '../uma/rpt.js';
import { runEvery } from '../common/run-every.js';

export type IntrospectionResponse = { active: false } | ({ active: true } & Record<string, unknown>);

// Revocation rows are useless once their token has expired anyway.
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * RFC 7662 introspection and RFC 7009 revocation. Revocations are read from the database on
 * every introspection, so they hold on every instance at once.
 */
@Injectable()
export class TokenLifecycleService implements OnModuleInit, OnModuleDestroy {
  private stopPurging?: () => void;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly verifier: AccessTokenVerifier,
    private readonly refreshTokens: RefreshTokensService,
    private readonly dataSources: DataSourceDirectory,
  ) {}

  onModuleInit(): void {
    this.stopPurging = runEvery(PURGE_INTERVAL_MS, () => this.purge());
  }

  onModuleDestroy(): void {
    this.stopPurging?.();
  }

  /** Callers are resource servers: clients allowed the `uma_protection` scope. */
  async introspect(caller: ClientRecord, parameters: TokenParameters): Promise<IntrospectionResponse> {
    if (!caller.allowedScopes.has('uma_protection')) {
      throw new OAuthError('insufficient_scope', 'introspection is for resource servers: the client needs the uma_protection scope').withStatus(403);
    }
    const token = requiredToken(parameters);
    const hint = parameters.token_type_hint;
    if (hint === 'refresh_token') return (await this.introspectRefresh(token)) ?? (await this.introspectAccess(token, caller)) ?? { active: false };
    return (await this.introspectAccess(token, caller)) ?? (await this.introspectRefresh(token)) ?? { active: false };
  }

  /** A client revokes its own token; unknown tokens are fine (200), another client's are refused. */
  async revoke(caller: ClientRecord, parameters: TokenParameters): Promise<void> {
    const token = requiredToken(parameters);
    const refresh = await this.refreshTokens.find(token);
    if (refresh) {
      if (refresh.client_id !== caller.id) throw notYours();
      await this.refreshTokens.revokeFamily(refresh.family_id);
      return;
    }
    const claims = await this.verifier.verify(token, { ignoreExpiration: true });
    if (!claims || claims.exp * 1000 <= Date.now()) return;
    if (claims.client_id !== caller.clientId) throw notYours();
    await this.dataSource.query('INSERT INTO revoked_token (jti, client_id, expires_at) VALUES ($1, $2, to_timestamp($3)) ON CONFLICT (jti) DO NOTHING', [
      claims.jti,
      claims.client_id,
      claims.exp,
    ]);
  }

  async purge(): Promise<void> {
    await this.dataSource.query('DELETE FROM revoked_token WHERE expires_at < now()');
  }

  private async introspectAccess(token: string, caller: ClientRecord): Promise<IntrospectionResponse | undefined> {
    const claims = await this.verifier.verify(token);
    if (!claims) return undefined;
    if (!(await this.meantFor(caller, claims.aud))) return { active: false };
    const revoked: unknown[] = await this.dataSource.query('SELECT 1 FROM revoked_token WHERE jti = $1', [claims.jti]);
    if (revoked.length > 0) return { active: false };
    const { scope, client_id, sub, aud, iss, exp, iat, jti, permissions, cnf } = claims;
    return {
      // FedAuthz §5.1.1 (docs/guides/uma.md): an RPT answers its permissions and no scope.
      active: true,
      ...(isRpt(permissions) ? {} : { scope }),
      client_id,
      sub,
      aud,
      iss,
      exp,
      iat,
      jti,
      // docs/reference/token-endpoint.md#introspection-post-oauth2introspect: a DPoP-bound token says so, with the key it is bound to.
      // docs/guides/mtls.md#certificate-bound-tokens: a certificate-bound token is a Bearer token with cnf.x5t#S256 (RFC 8705 §3.2).
      token_type: cnf?.jkt !== undefined ? 'DPoP' : 'Bearer',
      ...(permissions ? { permissions } : {}),
      ...(cnf ? { cnf } : {}),
    };
  }

  /** docs/concepts/audience.md#where-it-is-enforced: a data source's client sees only tokens whose aud names that data source. */
  private async meantFor(caller: ClientRecord, aud: unknown): Promise<boolean> {
    const served = await this.dataSources.introspectedBy(caller.id);
    if (served.length === 0) return true;
    const audience = Array.isArray(aud) ? aud : [aud];
    return served.some((uri) => audience.includes(uri));
  }

  private async introspectRefresh(token: string): Promise<IntrospectionResponse | undefined> {
    const row = await this.refreshTokens.find(token);
    if (!row) return undefined;
    if (row.used_at !== null || row.revoked_at !== null || row.expires_at.getTime() <= Date.now()) return { active: false };
    const [client]: { client_id: string }[] = await this.dataSource.query('SELECT client_id FROM client WHERE id = $1', [row.client_id]);
    return { active: true, scope: row.scope, client_id: client?.client_id, exp: Math.floor(row.expires_at.getTime() / 1000), token_type: 'refresh_token' };
  }
}

function requiredToken(parameters: TokenParameters): string {
  if (parameters.token === undefined) throw new OAuthError('invalid_request', 'the token parameter is required');
  return parameters.token;
}

function notYours(): OAuthError {
  return new OAuthError('unauthorized_client', 'the token was not issued to this client');
}
