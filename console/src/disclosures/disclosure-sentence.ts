import { joinWords } from '../tickets/ticket-sentence.js';

/** A disclosure as the admin interface gives it (the attributes the console reads). */
export type DisclosureAttributes = {
  clientId: string;
  issuedAt: string;
  expiresAt: string;
  chains: { scope: string; capabilityTicket: { ticketId: string }; purpose: { name: string } }[];
  withdrawnAt: string | null;
  withdrawnBy: string | null;
  /** A UDAP token's requesting organization and asserted purposes of use (absent or null for other tokens). */
  organizationId?: string | null;
  organizationName?: string | null;
  purposeOfUse?: string[] | null;
};

/**
 * One disclosure as a sentence: "glucose-app was given blood-glucose-level:read for 'Your doctor
 * follows your blood glucose level' at 10:02, until 10:32, under ticket T-1", then for a UDAP token
 * "for General Hospital (https://general.example/fhir), purpose of use urn:oid:…#TREAT", ending
 * "withdrawn at 10:05 by change 412" when consent was withdrawn. Times in the browser's zone, 24-hour, with the
 * date when it is not `today`.
 */
export function disclosureSentence(disclosure: DisclosureAttributes, today: Date = new Date()): string {
  const given = [...new Set(disclosure.chains.map((chain) => `${chain.scope} for '${chain.purpose.name}'`))];
  const tickets = [...new Set(disclosure.chains.map((chain) => chain.capabilityTicket.ticketId))];
  const sentence = `${disclosure.clientId} was given ${joinWords(given)} at ${clockTime(disclosure.issuedAt, today)}, until ${clockTime(disclosure.expiresAt, today)}, under ticket${tickets.length > 1 ? 's' : ''} ${joinWords(tickets)}`;
  const asked = organizationPart(disclosure);
  if (disclosure.withdrawnAt === null) return `${sentence}${asked}`;
  return `${sentence}${asked}, withdrawn at ${clockTime(disclosure.withdrawnAt, today)} by change ${disclosure.withdrawnBy}`;
}

/** ", for General Hospital (https://…), purpose of use urn:…#TREAT": whom a UDAP token was for and why; empty for any other token. */
function organizationPart(disclosure: DisclosureAttributes): string {
  if (!disclosure.organizationId) return '';
  const organization = disclosure.organizationName ? `${disclosure.organizationName} (${disclosure.organizationId})` : disclosure.organizationId;
  const codes = disclosure.purposeOfUse ?? [];
  return `, for ${organization}${codes.length > 0 ? `, purpose${codes.length > 1 ? 's' : ''} of use ${joinWords(codes)}` : ''}`;
}

/** "10:02", or "22 Nov 2026 10:02" on another day than `today` (both in the browser's time zone). */
export function clockTime(value: string, today: Date): string {
  const date = new Date(value);
  const time = `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
  if (date.toDateString() === today.toDateString()) return time;
  return `${date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' })} ${time}`;
}
