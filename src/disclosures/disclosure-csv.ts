import type { DisclosureView } from './disclosure-reads.js';

export const CSV_COLUMNS = [
  'id',
  'jti',
  'clientId',
  'scope',
  'aud',
  'issuedAt',
  'expiresAt',
  'tokenType',
  'jkt',
  'requestId',
  'ticketIds',
  'requestedResourceIds',
  'purposes',
  'withdrawnAt',
  'withdrawnBy',
  'organizationId',
  'organizationName',
  'purposeOfUse',
  'subjectName',
  'subjectId',
  'subjectRole',
  'consentReference',
  'actor',
  'parentJti',
] as const;

/** The header line of the export, CRLF-terminated (RFC 4180). */
export function csvHeader(): string {
  return CSV_COLUMNS.join(',') + '\r\n';
}

/** One disclosure as an RFC 4180 record, CRLF-terminated. */
export function csvRecord(view: DisclosureView): string {
  const distinct = (values: string[]) => [...new Set(values)].join(' | ');
  const cells: (string | null)[] = [
    view.id,
    view.jti,
    view.clientId,
    view.scope,
    Array.isArray(view.aud) ? view.aud.join(' ') : view.aud,
    view.issuedAt,
    view.expiresAt,
    view.tokenType,
    view.jkt,
    view.requestId,
    distinct(view.chains.map((chain) => chain.capabilityTicket.ticketId)),
    distinct(view.chains.map((chain) => chain.requestedResource.requestedResourceId)),
    distinct(view.chains.map((chain) => chain.purpose.name)),
    view.withdrawnAt,
    view.withdrawnBy,
    view.organizationId,
    view.organizationName,
    view.purposeOfUse === null ? null : view.purposeOfUse.join(' | '),
    view.subjectName,
    view.subjectId,
    view.subjectRole,
    view.consentReference === null ? null : view.consentReference.join(' | '),
    view.actor === null ? null : view.actor.join(' | '),
    view.parentJti,
  ];
  return cells.map(csvCell).join(',') + '\r\n';
}

/**
 * A cell a spreadsheet will not run as a formula (a leading `'` before `=`, `+`, `-`, `@`, tab or
 * CR), quoted when it holds a comma, a quote or a line break; null is empty.
 */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
