// supertest types every response body as `any`; tests name the shape they expect instead, so the
// type checker (and typescript-eslint's no-unsafe-* rules) see what a test reads. Each shape names
// only what the tests read.
import type { JWK } from 'jose';
import type { DisclosureView } from '../../src/disclosures/disclosure-reads.js';

/** The body of a response, as the shape the test expects. */
export function bodyOf<T>(response: { body: unknown }): T {
  return response.body as T;
}

/** Parses JSON text (a CLI's output, say) as the shape the test expects. */
export function parsedAs<T>(text: string): T {
  return JSON.parse(text) as T;
}

// @types/jest types the asymmetric matchers (expect.any, objectContaining, stringContaining,
// stringMatching) as `any`, so an object literal that embeds one is an unsafe `any` assignment;
// these hand the same matchers out as `unknown`.
/** expect.any(type), typed as unknown. */
export const anyInstanceOf = (type: unknown): unknown => expect.any(type);
/** expect.objectContaining(sample), typed as unknown. */
export const objectContaining = (sample: Record<string, unknown>): unknown => expect.objectContaining(sample);
/** expect.stringContaining(sample), typed as unknown. */
export const stringContaining = (sample: string): unknown => expect.stringContaining(sample);
/** expect.stringMatching(pattern), typed as unknown. */
export const stringMatching = (pattern: string | RegExp): unknown => expect.stringMatching(pattern);

// The token endpoint and its neighbours.

export type TokenBody = { access_token: string; token_type: string; expires_in: number; scope?: string; refresh_token?: string };
/** A token response from a client registered for refresh tokens: the refresh token is always there. */
export type RefreshableTokenBody = TokenBody & { refresh_token: string };
export type OAuthErrorBody = { error: string; error_description: string };
export type IntrospectionBody = { active: boolean } & Record<string, unknown>;
/** The published signing keys (each has a kid). */
export type JwksBody = { keys: (JWK & { kid: string })[] };
/** The SMART configuration document. */
export type SmartConfigurationBody = { scopes_supported: string[] } & Record<string, unknown>;

// JWTs, read unverified.

/** The protected header of a JWT. */
export type JwtHeader = { alg?: string; typ?: string; kid?: string; jku?: string } & Record<string, unknown>;
/** The claims of an access token the server issued. */
export type AccessTokenClaims = {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  jti: string;
  scope?: string;
  permissions?: { resource_id: string; resource_scopes: string[]; exp?: number }[];
  cnf?: { jkt: string };
} & Record<string, unknown>;

/** The payload of a compact JWT, unverified, as the shape the test expects. */
export function jwtPayload<T = AccessTokenClaims>(jwt: string): T {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as T;
}

/** The payload of a compact JWT the server issued, unverified. */
export function accessTokenClaims(jwt: string): AccessTokenClaims {
  return jwtPayload<AccessTokenClaims>(jwt);
}

// JSON:API and its JSON Patch extension (the admin interface).

export type ResourceIdentifier = { type: string; id: string };
export type JsonApiResource = {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: ResourceIdentifier | ResourceIdentifier[] | null }>;
  meta?: Record<string, unknown>;
};
/** An admin record whose relationships are all to-one (each names one record). */
export type ToOneRecord = Omit<JsonApiResource, 'relationships'> & { relationships: Record<string, { data: ResourceIdentifier }> };
export type JsonApiError = { status: string; code?: string; title?: string; detail?: string; source?: { pointer?: string; parameter?: string } };
export type JsonApiDocument<D = JsonApiResource | JsonApiResource[] | null> = {
  data: D;
  included?: JsonApiResource[];
  meta?: Record<string, unknown>;
  links?: Record<string, string | null>;
};
export type JsonApiErrors = { errors: JsonApiError[] };
/** A JSON:API error list whose errors point at the member they refuse. */
export type PointedJsonApiErrors = { errors: (JsonApiError & { source: { pointer: string } })[] };
/** A JSON Patch response: one document (or error list) per operation. */
export type PatchResults = ({ data: JsonApiResource | null } & Partial<JsonApiErrors>)[];
/** One operation's result in a JSON Patch response, with the meta a created client carries. */
export type PatchResult = { data: JsonApiResource | null; errors?: JsonApiError[]; meta?: { clientSecret?: string } };
/** A JSON Patch result for an added uma-client: its record, and the secret shown this once. */
export type CreatedClientResult = { data: JsonApiResource; meta: { clientSecret: string } };
/** A JSON Patch response whose first operation added a client: the secret issued once. */
export type IssuedSecretResults = { meta: { clientSecret: string } }[];

/** The client secret issued by the first operation of a JSON Patch that added a client. */
export function clientSecretOf(response: { body: unknown }): string {
  return bodyOf<IssuedSecretResults>(response)[0].meta.clientSecret;
}

/** GET /admin/authorization-server's attributes. */
export type AuthorizationServerAttributes = {
  issuer: string;
  metadata: Record<string, unknown>;
  keys: ({ kid: string; signing: boolean } & Record<string, unknown>)[];
};

// GET /admin/explain.

/** One requested scope in the answer of /admin/explain; `missing` names the first missing link. */
export type ExplainEntry = { scope: string; granted: boolean; missing?: string } & Record<string, unknown>;
/** The answer of /admin/explain. */
export type ExplainBody = { granted: boolean; lifetime?: number; scopes: ExplainEntry[] } & Record<string, unknown>;
export type ExplainCovering = {
  requestedResourcesCapabilityTickets: string[];
  capabilityTicket: { id: string; ticketId: string; ticketName: string };
} & Record<string, unknown>;
export type ExplainScope = { scope: string; granted: boolean; allowed: boolean; covering?: ExplainCovering[]; missing?: string } & Record<string, unknown>;
/** GET /admin/explain's verdict, in full. */
export type ExplainVerdict = {
  client: string;
  granted: boolean;
  scope: string;
  lifetime: number | null;
  aud: string | string[] | null;
  scopes: ExplainScope[];
  missing?: string;
};

// Disclosures (the admin type).

/** A disclosure's attributes as the admin interface answers them (the server's view, less its id). */
export type DisclosureAttributes = Omit<DisclosureView, 'id'>;
export type DisclosureResource = { type: string; id: string; attributes: DisclosureAttributes };
/** GET /admin/disclosure/{id}. */
export type DisclosureDocument = { data: DisclosureResource };
/** A page of GET /admin/disclosure: newest first, with the total of every matching row. */
export type DisclosureList = { data: DisclosureResource[]; meta: { total: number }; links: Record<string, string | null> };

// UMA and FHIR.

/** The answer of the UMA permission endpoint. */
export type PermissionTicketBody = { ticket: string };
export type UmaResourceBody = { _id: string; type?: string; resource_scopes?: string[]; name?: string };
export type FhirBundle = { resourceType: string; entry: { resource: unknown }[] };

// The CLI.

/** What `client create --json` prints: the client id, and the secret a secret client gets once. */
export type CliClientJson = { client_id: string; client_secret: string };
