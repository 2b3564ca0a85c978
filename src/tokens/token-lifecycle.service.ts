import { purgeExpiredRevocations, statusListIdOf } from '../revocation/revoked-tokens.js';
import { RevocationState } from '../revocation/revocation-state.js';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ClientRecord } from '../clients/client-record.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { AccessTokenVerifier, type AccessTokenClaims } from '../keys/access-token-verifier.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { RefreshTokensService } from './refresh-tokens.service.js';
import type { TokenParameters } from '../oauth/token-request.js';
import { DataSourceDirectory } from '../tickets/data-source-directory.js';
import { ClientDirectory } from '../clients/client-directory.js';
import { isRpt } from '../uma/rpt.js';
import { runEvery } from '../common/run-every.js';
import { DisclosureWithdrawals } from '../disclosures/disclosure-withdrawals.js';

export type IntrospectionResponse = { active: false } | ({ active: true } & Record<string, unknown>);

// Revocation rows are useless once their token has expired anyway.
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * RFC 7662 introspection and RFC 7009 revocation. Introspection decides from memory in the steady
 * state (RevocationState, the client and data-source directories, the verifier's cache); a
 * revocation holds at once on the instance that made it and within a second on every other.
 */
@Injectable()
export class TokenLifecycleService implements OnModuleInit, OnModuleDestroy {
  private stopPurging?: () => void;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly verifier: AccessTokenVerifier,
    private readonly refreshTokens: RefreshTokensService,
    private readonly dataSources: DataSourceDirectory,
    private readonly clients: ClientDirectory,
    private readonly revocations: RevocationState,
    private readonly withdrawals: DisclosureWithdrawals,
  ) {}

  onModuleInit(): void {
    this.stopPurging = runEvery(PURGE_INTERVAL_MS, () => this.purge());
  }

  onModuleDestroy(): void {
    this.stopPurging?.();
  }

  /**
   * Any authenticated client may ask; what it sees is decided per token
   * (docs/reference/token-endpoint.md#who-may-see-a-token-at-introspection): its own tokens, the
   * tokens meant for the data sources it introspects for, and, when allowed `uma_protection`, the
   * tokens of the default audience. Everything else is `{"active": false}`.
   */
  async introspect(caller: ClientRecord, parameters: TokenParameters): Promise<IntrospectionResponse> {
    const token = requiredToken(parameters);
    const hint = parameters.token_type_hint;
    if (hint === 'refresh_token') return (await this.introspectRefresh(token, caller)) ?? (await this.introspectAccess(token, caller)) ?? { active: false };
    return (await this.introspectAccess(token, caller)) ?? (await this.introspectRefresh(token, caller)) ?? { active: false };
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
    // Its status list entry (docs/reference/status-lists.md) is kept with it: the list is signed again with the entry set.
    const entry = statusEntryOf(claims, this.config.issuer);
    const statusListId = await statusListIdOf(this.dataSource, entry?.publicId);
    await this.revocations.revoke([
      { jti: claims.jti, clientId: claims.client_id, expiresAt: new Date(claims.exp * 1000), statusListId, statusIdx: entry?.idx ?? null },
    ]);
    // docs/guides/token-exchange.md#withdrawal-cascades: the tokens exchanged from it go with it, before the answer.
    await this.withdrawals.withdrawExchangedFrom([claims.jti]);
  }

  async purge(): Promise<void> {
    await purgeExpiredRevocations(this.dataSource);
  }

  private async introspectAccess(token: string, caller: ClientRecord): Promise<IntrospectionResponse | undefined> {
    const claims = await this.verifier.verify(token);
    if (!claims) return undefined;
    if (!(await this.mayIntrospect(caller, claims))) return { active: false };
    // A deleted client's tokens end with it, plain scopes too (docs/reference/token-endpoint.md#introspection-post-oauth2introspect):
    // its id unknown now, or known for a client created after the token was issued.
    if (!(await this.clientStillHolds(claims))) return { active: false };
    if (await this.revocations.isRevoked(claims.jti)) return { active: false };
    const { scope, client_id, sub, aud, iss, exp, iat, jti, permissions, cnf, extensions, act } = claims;
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
      // docs/reference/trust-communities.md#the-token: a UDAP token's hl7-b2b extension, as the token carries it.
      ...(extensions ? { extensions } : {}),
      // docs/guides/token-exchange.md#the-exchanged-token: an exchanged token names its actors.
      ...(act ? { act } : {}),
    };
  }

  /**
   * docs/concepts/audience.md#where-it-is-enforced: the token's own client sees it; a data source's
   * introspection client sees only tokens whose aud names one of its data sources; any other
   * client allowed `uma_protection` sees only tokens of the default audience (a token meant for a
   * data source is not its business).
   */
  private async mayIntrospect(caller: ClientRecord, claims: AccessTokenClaims): Promise<boolean> {
    if (claims.client_id === caller.clientId) return true;
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    const served = await this.dataSources.introspectedBy(caller.id);
    if (served.length > 0) return served.some((uri) => audience.includes(uri));
    return caller.allowedScopes.has('uma_protection') && audience.length > 0 && audience.every((entry) => entry === this.config.audience);
  }

  /** Whether the client the token was issued to still exists (from memory, kept current by the change feed). */
  private async clientStillHolds(claims: AccessTokenClaims): Promise<boolean> {
    const client = await this.clients.find(claims.client_id);
    // A cancelled UDAP registration (no grant type left, docs/reference/trust-communities.md#registration) holds none of its tokens.
    return client !== null && client.grantTypes.size > 0 && (client.createdAt === undefined || client.createdAt <= claims.iat * 1000 + 999);
  }

  /** A refresh token is its own client's business only: any other caller gets `{"active": false}`. */
  private async introspectRefresh(token: string, caller: ClientRecord): Promise<IntrospectionResponse | undefined> {
    const row = await this.refreshTokens.find(token);
    if (!row) return undefined;
    if (row.client_id !== caller.id) return { active: false };
    if (row.used_at !== null || row.revoked_at !== null || row.expires_at.getTime() <= Date.now()) return { active: false };
    const [client]: { client_id: string }[] = await this.dataSource.query('SELECT client_id FROM client WHERE id = $1', [row.client_id]);
    return { active: true, scope: row.scope, client_id: client?.client_id, exp: Math.floor(row.expires_at.getTime() / 1000), token_type: 'refresh_token' };
  }
}

/** The list (public id) and index a token's `status` claim names, when the list is one of this server's. */
function statusEntryOf(claims: Record<string, unknown>, issuer: string): { publicId: string; idx: number } | undefined {
  const reference = (claims.status as { status_list?: { idx?: unknown; uri?: unknown } } | undefined)?.status_list;
  const prefix = `${issuer}/oauth2/status/`;
  if (typeof reference?.uri !== 'string' || !reference.uri.startsWith(prefix) || !Number.isSafeInteger(reference.idx)) return undefined;
  return { publicId: reference.uri.slice(prefix.length), idx: reference.idx as number };
}

function requiredToken(parameters: TokenParameters): string {
  if (parameters.token === undefined) throw new OAuthError('invalid_request', 'the token parameter is required');
  return parameters.token;
}

function notYours(): OAuthError {
  return new OAuthError('unauthorized_client', 'the token was not issued to this client');
}
