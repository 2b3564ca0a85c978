import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  UdapAnchorError,
  UdapAnchors,
  UdapCertificateError,
  UdapCertificateErrorCode,
  UdapChainVerifier,
  type VerifiedUdapJws,
} from '../certificates/udap-chain.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { CrlFetcher } from './crl-fetcher.js';

/** What a check needs of a trust community (docs/reference/trust-communities.md). */
export type UdapCommunity = {
  id: number;
  communityUri: string;
  anchors: string[];
  scopeCeiling: string;
  purposesOfUse: string[];
  revocationCheck: 'require' | 'off';
  accessTokenLifetime: number;
  enabled: boolean;
};

type CommunityRow = {
  id: number;
  community_uri: string;
  anchors: string[];
  scope_ceiling: string;
  purposes_of_use: string[];
  revocation_check: 'require' | 'off';
  access_token_lifetime: number;
  enabled: boolean;
};

const COLUMNS = 'id, community_uri, anchors, scope_ceiling, purposes_of_use, revocation_check, access_token_lifetime, enabled';
// Anchor sets read once per distinct content: a community's row is read per check, its certificates are not parsed again.
const MAX_ANCHOR_SETS = 256;
// Refusals that say the chain does not lead to this community, as opposed to one that does and is refused there.
const NOT_THIS_COMMUNITY: ReadonlySet<UdapCertificateErrorCode> = new Set([UdapCertificateErrorCode.NoChain]);

/**
 * UDAP's certificate checks against trust communities (docs/reference/trust-communities.md#certificate-checks),
 * for registration and token requests: one UdapChainVerifier per process, its CRLs fetched by
 * CrlFetcher (the jwks_uri guards). A community is read from the database at each check, so
 * that a disabled community or a removed anchor stops its members on every instance at once;
 * its anchors are parsed once per distinct set. Counts `udap_certificate_checks_total{result}`.
 */
@Injectable()
export class UdapCertificates {
  private readonly verifier: UdapChainVerifier;
  private readonly anchorSets = new Map<string, UdapAnchors>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    crls: CrlFetcher,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.verifier = new UdapChainVerifier({ fetchCrl: crls.fetchCrl });
  }

  /** The community with this row id, enabled or not; undefined when there is none. */
  async community(id: number): Promise<UdapCommunity | undefined> {
    const [row] = await this.dataSource.query<CommunityRow[]>(`SELECT ${COLUMNS} FROM trust_community WHERE id = $1`, [id]);
    return row ? communityOf(row) : undefined;
  }

  /** The JWS checked against one community's anchors; a UdapCertificateError when refused. */
  async check(jws: string, community: UdapCommunity): Promise<VerifiedUdapJws> {
    try {
      const verified = await this.verifier.verify(jws, this.anchorsOf(community), community.revocationCheck);
      this.metrics?.udapCertificateCheck('ok');
      return verified;
    } catch (error) {
      if (error instanceof UdapCertificateError) this.metrics?.udapCertificateCheck(error.code);
      throw error;
    }
  }

  /**
   * Registration: the JWS checked against each enabled community in turn (oldest first); the
   * first whose anchors build its chain and accept it answers. When none does, the refusal of a
   * community whose anchors built the chain (an expired or revoked certificate, say) is thrown
   * before a plain "no chain".
   */
  async checkInEnabled(jws: string): Promise<{ community: UdapCommunity; verified: VerifiedUdapJws }> {
    const rows = await this.dataSource.query<CommunityRow[]>(`SELECT ${COLUMNS} FROM trust_community WHERE enabled ORDER BY id`);
    let refusal: UdapCertificateError | undefined;
    for (const community of rows.map(communityOf)) {
      try {
        return { community, verified: await this.check(jws, community) };
      } catch (error) {
        if (!(error instanceof UdapCertificateError)) throw error;
        if (!NOT_THIS_COMMUNITY.has(error.code)) throw error;
        refusal ??= error;
      }
    }
    throw refusal ?? new UdapCertificateError(UdapCertificateErrorCode.NoChain, 'no enabled trust community of this server accepts certificates');
  }

  private anchorsOf(community: UdapCommunity): UdapAnchors {
    const key = JSON.stringify(community.anchors);
    let anchors = this.anchorSets.get(key);
    if (!anchors) {
      try {
        anchors = UdapAnchors.fromPem(community.anchors);
      } catch (error) {
        // Anchors are checked on write; one that cannot be read now trusts nothing.
        if (error instanceof UdapAnchorError) throw new UdapCertificateError(UdapCertificateErrorCode.NoChain, "the trust community's anchors cannot be used");
        throw error;
      }
      if (this.anchorSets.size >= MAX_ANCHOR_SETS) this.anchorSets.delete(this.anchorSets.keys().next().value!);
      this.anchorSets.set(key, anchors);
    }
    return anchors;
  }
}

function communityOf(row: CommunityRow): UdapCommunity {
  return {
    id: row.id,
    communityUri: row.community_uri,
    anchors: row.anchors,
    scopeCeiling: row.scope_ceiling,
    purposesOfUse: row.purposes_of_use,
    revocationCheck: row.revocation_check,
    accessTokenLifetime: row.access_token_lifetime,
    enabled: row.enabled,
  };
}
