import { randomUUID } from 'node:crypto';
import { Controller, Get, Header, HttpCode, Inject, Logger, Module, Query, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { SignJWT } from 'jose';
import { DataSource } from 'typeorm';
import { UDAP_ALGORITHMS } from '../certificates/udap-chain.js';
import { readUdapServerCertificate, type UdapServerCertificate } from '../config/udap-server-certificate.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { KeyEncryption } from '../keys/key-encryption.js';

/** How long signed_metadata is good for: the IG asks for at most a year; a day keeps a copied document short-lived. */
export const SIGNED_METADATA_LIFETIME_SECONDS = 86_400;

type CommunityRow = {
  id: number;
  community_uri: string;
  scope_ceiling: string;
  enabled: boolean;
  server_certificate: string | null;
  server_key: string | null;
};

/**
 * UDAP discovery (HL7 FAST Security IG STU 2 §2, docs/reference/trust-communities.md#discovery):
 * `GET /.well-known/udap`, routed only when UDAP=true. Read from the database on every request,
 * so that a community's change (its ceiling, its certificate, its being disabled) shows at once
 * on every instance; `no-cache` as the SMART document, since `signed_metadata` is fresh each time.
 */
@ApiTags('udap')
@Controller()
export class UdapDiscoveryController {
  private readonly logger = new Logger('UdapDiscovery');
  private readonly keyEncryption: KeyEncryption;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.keyEncryption = new KeyEncryption(config.keyEncryptionSecret);
  }

  @Get('.well-known/udap')
  @ApiOperation({ summary: 'UDAP server metadata (HL7 FAST Security IG STU 2), with signed_metadata' })
  @ApiQuery({
    name: 'community',
    required: false,
    description: "a trust community's communityUri: the document signed with that community's server certificate",
  })
  @ApiOkResponse({ description: 'the UDAP metadata members and signed_metadata, a JWS signed with the x5c chain of the server certificate' })
  @ApiNoContentResponse({ description: '`community` names no enabled trust community' })
  @HttpCode(200)
  @Header('Cache-Control', 'no-cache')
  async metadata(@Query('community') community: unknown, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown> | undefined> {
    const communities = await this.dataSource.query<CommunityRow[]>(
      'SELECT t.id, t.community_uri, t.scope_ceiling, t.enabled, t.server_certificate, t.server_key FROM trust_community t WHERE t.enabled ORDER BY t.id',
    );
    let signer = this.serverCertificate();
    if (community !== undefined) {
      // Repeated (?community=a&community=b) or anything but one URI: no community of ours.
      const chosen = typeof community === 'string' ? communities.find((row) => row.community_uri === community) : undefined;
      if (!chosen) {
        response.status(204);
        return undefined;
      }
      signer = this.communityCertificate(chosen) ?? signer;
    }
    const issuer = this.config.issuer;
    const tokenEndpoint = `${issuer}/oauth2/token`;
    const registrationEndpoint = `${issuer}/oauth2/register`;
    const now = Math.floor(Date.now() / 1000);
    const signedMetadata = await new SignJWT({ token_endpoint: tokenEndpoint, registration_endpoint: registrationEndpoint })
      .setProtectedHeader({ alg: 'RS256', x5c: signer.x5c })
      .setIssuer(issuer)
      .setSubject(issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + SIGNED_METADATA_LIFETIME_SECONDS)
      .setJti(randomUUID())
      .sign(signer.key);
    return {
      udap_versions_supported: ['1'],
      udap_profiles_supported: ['udap_dcr', 'udap_authn', 'udap_authz'],
      udap_authorization_extensions_supported: ['hl7-b2b'],
      udap_authorization_extensions_required: ['hl7-b2b'],
      udap_certifications_supported: [],
      grant_types_supported: ['client_credentials'],
      scopes_supported: scopesOf(communities),
      token_endpoint: tokenEndpoint,
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: [...UDAP_ALGORITHMS],
      registration_endpoint: registrationEndpoint,
      registration_endpoint_jwt_signing_alg_values_supported: [...UDAP_ALGORITHMS],
      signed_metadata: signedMetadata,
    };
  }

  private serverCertificate(): UdapServerCertificate {
    // loadConfig refuses UDAP=true without UDAP_CERT_FILE and UDAP_KEY_FILE, and this controller is routed only with UDAP=true.
    const certificate = this.config.udapServerCertificate;
    if (!certificate) throw new Error('UDAP=true without a server certificate: loadConfig should have refused the start');
    return certificate;
  }

  /**
   * The community's own certificate, checked again now (it may have expired, or ISSUER changed
   * since it was stored); undefined, and a warning, when it cannot sign: the server's is used.
   */
  private communityCertificate(row: CommunityRow): UdapServerCertificate | undefined {
    if (row.server_certificate === null || row.server_key === null) return undefined;
    try {
      return readUdapServerCertificate(row.server_certificate, this.keyEncryption.open(row.server_key, 'trust community server key'), this.config.issuer);
    } catch (error) {
      this.logger.warn(
        `trust-community ${row.id}: its serverCertificate cannot sign signed_metadata (${(error as Error).message}); the server's certificate signs instead`,
      );
      return undefined;
    }
  }
}

/** Every scope a member may be granted: the union of the enabled communities' ceilings, each name as its ceiling writes it, in first-seen order. */
function scopesOf(communities: readonly CommunityRow[]): string[] {
  return [...new Set(communities.flatMap((row) => row.scope_ceiling.split(' ').filter(Boolean)))];
}

/** Routed by AppModule only when UDAP=true: otherwise `/.well-known/udap` is a 404 as any unknown path. */
@Module({ controllers: [UdapDiscoveryController] })
export class UdapDiscoveryModule {}
