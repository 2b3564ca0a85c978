import { isIP } from 'node:net';
import { CONTROL_CHARACTER } from '../common/control-characters.js';
import type { ClientCertificate } from './client-certificate.js';
import { NameSyntaxError, parseDistinguishedName, sameName } from './distinguished-name.js';

/** The five ways a tls_client_auth client names its certificate (RFC 8705 §2.1.2). */
export const SUBJECT_RULE_KINDS = ['subjectDn', 'sanDns', 'sanUri', 'sanIp', 'sanEmail'] as const;
export type SubjectRuleKind = (typeof SUBJECT_RULE_KINDS)[number];
/** A client's one registered value, and which of the five it is. */
export type SubjectRule = { kind: SubjectRuleKind; value: string };

/** The registration metadata name of each rule (RFC 8705 §2.1.2), as error messages say it. */
export const METADATA_NAME_OF_RULE: Record<SubjectRuleKind, string> = {
  subjectDn: 'tls_client_auth_subject_dn',
  sanDns: 'tls_client_auth_san_dns',
  sanUri: 'tls_client_auth_san_uri',
  sanIp: 'tls_client_auth_san_ip',
  sanEmail: 'tls_client_auth_san_email',
};

/** A registered value that is not what its rule takes; the message says why. */
export class SubjectRuleError extends Error {}

/**
 * Checks a value at registration (docs/guides/mtls.md#registering-a-client): a distinguished
 * name must parse, an IP address must be one; the others are non-empty strings of at most 2048
 * printable characters. Answers the value as stored (as given, trimmed of nothing).
 */
export function checkSubjectRule(kind: SubjectRuleKind, value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > 2048 || CONTROL_CHARACTER.test(value)) {
    throw new SubjectRuleError(`${METADATA_NAME_OF_RULE[kind]} must be 1 to 2048 characters without control characters`);
  }
  if (kind === 'subjectDn') {
    try {
      parseDistinguishedName(value);
    } catch (error) {
      if (error instanceof NameSyntaxError) throw new SubjectRuleError(`${METADATA_NAME_OF_RULE[kind]} is not a distinguished name: ${error.message}`);
      throw error;
    }
  }
  if (kind === 'sanIp' && isIP(value) === 0) throw new SubjectRuleError(`${METADATA_NAME_OF_RULE[kind]} must be an IPv4 or IPv6 address`);
  return value;
}

/**
 * Whether the certificate matches the client's registered value (docs/guides/mtls.md#how-a-certificate-is-matched):
 * the subject as a name (sameName); a dNSName exactly but case-insensitively, with no wildcard
 * expansion; a URI exactly; an IP address by its bytes (both sides in canonical form); an
 * rfc822Name exactly, its domain case-insensitively. Any SAN of the kind may match.
 */
export function matchesSubjectRule(certificate: ClientCertificate, rule: SubjectRule): boolean {
  if (rule.kind === 'subjectDn') return sameName(certificate.subject(), parseDistinguishedName(rule.value));
  const names = certificate.alternativeNames();
  switch (rule.kind) {
    case 'sanDns':
      return names.dns.some((name) => name.toLowerCase() === rule.value.toLowerCase());
    case 'sanUri':
      return names.uri.includes(rule.value);
    case 'sanIp': {
      const wanted = canonicalIp(rule.value);
      return wanted !== undefined && names.ip.some((name) => canonicalIp(name) === wanted);
    }
    case 'sanEmail':
      return names.email.some((name) => sameMailbox(name, rule.value));
  }
}

/** The address in one canonical text form per byte string (IPv6 as RFC 5952 writes it), or undefined. */
export function canonicalIp(address: string): string | undefined {
  const version = isIP(address);
  if (version === 4) return new URL(`http://${address}/`).hostname;
  if (version === 6) return new URL(`http://[${address}]/`).hostname;
  return undefined;
}

function sameMailbox(left: string, right: string): boolean {
  const [a, b] = [left.lastIndexOf('@'), right.lastIndexOf('@')];
  if (a < 0 || b < 0) return left === right;
  return left.slice(0, a) === right.slice(0, b) && left.slice(a + 1).toLowerCase() === right.slice(b + 1).toLowerCase();
}
