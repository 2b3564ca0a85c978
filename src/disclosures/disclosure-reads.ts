import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { CoveringChain } from '../tickets/access-decision.js';
import { type BasisKind, basisTag } from './basis-tags.js';

/** The filters of the disclosure collection, validated (docs/guides/consent-withdrawal.md). */
export type DisclosureFilter = {
  client?: string;
  capabilityTicket?: number;
  requestedResource?: number;
  since?: Date;
  until?: Date;
  active?: boolean;
  /** A UDAP token's `hl7-b2b` organization_id, and one of its asserted purpose-of-use codes. */
  organization?: string;
  purposeOfUse?: string;
  /** docs/guides/token-exchange.md: the tokens exchanged from the token with this jti. */
  parentJti?: string;
};

/** A disclosure as the admin interface shows it (JSON:API attributes). */
export type DisclosureView = {
  id: string;
  jti: string;
  clientId: string;
  scope: string;
  aud: string | string[];
  issuedAt: string;
  expiresAt: string;
  tokenType: string;
  jkt: string | null;
  requestId: string | null;
  chains: CoveringChain[];
  withdrawnAt: string | null;
  withdrawnBy: string | null;
  /** A UDAP token's `hl7-b2b` extension as asserted; each null for other tokens. */
  organizationId: string | null;
  organizationName: string | null;
  purposeOfUse: string[] | null;
  subjectName: string | null;
  subjectId: string | null;
  subjectRole: string | null;
  consentReference: string[] | null;
  /** docs/guides/token-exchange.md: an exchanged token's actors (outermost first) and the jti it was exchanged from; null otherwise. */
  actor: string[] | null;
  parentJti: string | null;
};

type Row = {
  id: string;
  jti: string;
  client_id: string;
  scope: string;
  aud: string | string[];
  issued_at: Date;
  expires_at: Date;
  token_type: string;
  jkt: string | null;
  request_id: string | null;
  chains: CoveringChain[];
  withdrawn_at: Date | null;
  withdrawn_by: number | null;
  organization_id: string | null;
  organization_name: string | null;
  purpose_of_use: string[] | null;
  subject_name: string | null;
  subject_id: string | null;
  subject_role: string | null;
  consent_reference: string[] | null;
  actor: string[] | null;
  parent_jti: string | null;
};

const COLUMNS =
  'd.id::text AS id, d.jti, d.client_id, d.scope, d.aud, d.issued_at, d.expires_at, d.token_type, d.jkt, d.request_id, b.chains, d.withdrawn_at, d.withdrawn_by, ' +
  'd.organization_id, d.organization_name, d.purpose_of_use, d.subject_name, d.subject_id, d.subject_role, d.consent_reference, d.actor, d.parent_jti';
// Every read names the chains through the row's basis.
const FROM = 'disclosure d JOIN disclosure_basis b ON b.key = d.basis';
const CSV_CHUNK = 1_000;

/** Reads of the disclosure table: newest first (issuedAt, then id, descending), every filter served by an index. */
@Injectable()
export class DisclosureReads {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async find(id: string): Promise<DisclosureView | undefined> {
    const [row]: Row[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE d.id = $1`, [id]);
    return row ? viewOf(row) : undefined;
  }

  async list(filter: DisclosureFilter, offset: number, limit: number): Promise<{ records: DisclosureView[]; total: number }> {
    const { where, values } = conditionsOf(filter);
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${FROM} ${where} ORDER BY d.issued_at DESC, d.id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, limit, offset],
    );
    const [{ total }]: { total: number }[] = await this.dataSource.query(`SELECT count(*)::int AS total FROM disclosure d ${where}`, values);
    return { records: rows.map(viewOf), total };
  }

  /** Every matching row, newest first, a chunk at a time (keyset paging: no OFFSET over a long export). */
  async *all(filter: DisclosureFilter): AsyncGenerator<DisclosureView[]> {
    const { where, values } = conditionsOf(filter);
    let after: { issuedAt: Date; id: string } | undefined;
    for (;;) {
      const keyset = after ? `${where ? `${where} AND` : 'WHERE'} (d.issued_at, d.id) < ($${values.length + 1}, $${values.length + 2}::bigint)` : where;
      const rows: Row[] = await this.dataSource.query(
        `SELECT ${COLUMNS} FROM ${FROM} ${keyset} ORDER BY d.issued_at DESC, d.id DESC LIMIT ${CSV_CHUNK}`,
        after ? [...values, after.issuedAt, after.id] : values,
      );
      if (rows.length === 0) return;
      yield rows.map(viewOf);
      if (rows.length < CSV_CHUNK) return;
      const last = rows[rows.length - 1];
      after = { issuedAt: last.issued_at, id: last.id };
    }
  }
}

function conditionsOf(filter: DisclosureFilter): { where: string; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    conditions.push(condition(`$${values.length}`));
  };
  // Client, ticket and requested resource: the bases through their tags' GIN index, then their
  // disclosures through `disclosure (basis, …)`; the client's tag is a hash, so its id is checked too.
  const resting = (kind: BasisKind, ref: string | number) =>
    add((p) => `d.basis IN (SELECT key FROM disclosure_basis WHERE tags @> ARRAY[${p}::bigint])`, basisTag(kind, ref));
  if (filter.client !== undefined) {
    resting('client-id', filter.client);
    add((p) => `d.client_id = ${p}`, filter.client);
  }
  if (filter.capabilityTicket !== undefined) resting('capability-ticket', filter.capabilityTicket);
  if (filter.requestedResource !== undefined) resting('requested-resource', filter.requestedResource);
  if (filter.since !== undefined) add((p) => `d.issued_at >= ${p}`, filter.since);
  if (filter.until !== undefined) add((p) => `d.issued_at < ${p}`, filter.until);
  // UDAP tokens only: each through its partial index (the organization's btree, the codes' GIN).
  if (filter.organization !== undefined) add((p) => `d.organization_id = ${p}`, filter.organization);
  if (filter.purposeOfUse !== undefined) add((p) => `d.purpose_of_use @> ARRAY[${p}::text]`, filter.purposeOfUse);
  if (filter.parentJti !== undefined) add((p) => `d.parent_jti = ${p}`, filter.parentJti);
  if (filter.active === true) conditions.push('(d.expires_at > now() AND d.withdrawn_at IS NULL)');
  if (filter.active === false) conditions.push('NOT (d.expires_at > now() AND d.withdrawn_at IS NULL)');
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', values };
}

/** RFC 3339 UTC, whole seconds. */
export function instant(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function viewOf(row: Row): DisclosureView {
  return {
    id: row.id,
    jti: row.jti,
    clientId: row.client_id,
    scope: row.scope,
    aud: row.aud,
    issuedAt: instant(row.issued_at),
    expiresAt: instant(row.expires_at),
    tokenType: row.token_type,
    jkt: row.jkt,
    requestId: row.request_id,
    chains: row.chains,
    withdrawnAt: row.withdrawn_at ? instant(row.withdrawn_at) : null,
    withdrawnBy: row.withdrawn_by === null ? null : String(row.withdrawn_by),
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    purposeOfUse: row.purpose_of_use,
    subjectName: row.subject_name,
    subjectId: row.subject_id,
    subjectRole: row.subject_role,
    consentReference: row.consent_reference,
    actor: row.actor,
    parentJti: row.parent_jti,
  };
}
