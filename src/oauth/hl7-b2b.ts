/**
 * The `hl7-b2b` authorization extension of a UDAP token request (HL7 FAST Security IG STU 2 §5.2.1.1;
 * docs/reference/trust-communities.md): which organization asks, for which purposes of use. The
 * shape is the claim's, as asserted and as it is carried in the access token's `extensions`
 * (members other than these are dropped). Framework-free: the token grant parses it, the consent
 * decision reads `purpose_of_use`, the accounting of disclosures stores it.
 */
export type Hl7B2b = {
  version: '1';
  /** An absolute URI naming the requesting organization. */
  organization_id: string;
  organization_name?: string;
  /** One or more purpose-of-use codes, e.g. `urn:oid:2.16.840.1.113883.5.8#TREAT`. */
  purpose_of_use: string[];
  subject_name?: string;
  subject_id?: string;
  subject_role?: string;
  /** Absolute URIs of the consent policies the requester holds. */
  consent_policy?: string[];
  /** Absolute URLs of consent documents. */
  consent_reference?: string[];
};

/** The extension's name, as `extensions` and `udap_authorization_extensions_*` spell it. */
export const HL7_B2B = 'hl7-b2b';
