// More response shapes for tests (beside ./bodies.ts): the explain verdict, UMA bodies, JWT payloads,
// the CLI's printed JSON. Each names only what the tests read.
import type { JsonApiError, JsonApiResource, ResourceIdentifier } from './bodies.js';

/** One operation's result in a JSON Patch response, with the meta a created client carries. */
export type PatchResult = { data: JsonApiResource | null; errors?: JsonApiError[]; meta?: { clientSecret?: string } };

/** The claims of an access token the tests look at. */
export type AccessTokenClaims = { exp: number; iat: number; aud?: string | string[]; cnf?: { jkt: string } } & Record<string, unknown>;

/** The payload of a compact JWT, unverified, as the shape the test expects. */
export function jwtPayload<T = AccessTokenClaims>(jwt: string): T {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as T;
}

/** Parses JSON text (a CLI's output, say) as the shape the test expects. */
export function parsedAs<T>(text: string): T {
  return JSON.parse(text) as T;
}

export type ExplainCovering = {
  requestedResourcesCapabilityTickets: string[];
  capabilityTicket: { id: string; ticketId: string; ticketName: string };
} & Record<string, unknown>;
export type ExplainScope = { scope: string; granted: boolean; allowed: boolean; covering?: ExplainCovering[]; missing?: string } & Record<string, unknown>;
/** GET /admin/explain's verdict. */
export type ExplainVerdict = {
  client: string;
  granted: boolean;
  scope: string;
  lifetime: number | null;
  aud: string | string[] | null;
  scopes: ExplainScope[];
  missing?: string;
};

export type UmaResourceBody = { _id: string; type?: string; resource_scopes?: string[]; name?: string };
export type PermissionTicketBody = { ticket: string };
export type JwksBody = { keys: ({ kid: string } & Record<string, unknown>)[] };
export type FhirBundle = { resourceType: string; entry: { resource: unknown }[] };
export type CliClientOutput = { client_id: string; client_secret: string };
/** A JSON Patch result for an added uma-client: its record, and the secret shown this once. */
export type CreatedClientResult = { data: JsonApiResource; meta: { clientSecret: string } };
/** GET /admin/authorization-server's attributes. */
export type AuthorizationServerAttributes = {
  issuer: string;
  metadata: Record<string, unknown>;
  keys: ({ kid: string; signing: boolean } & Record<string, unknown>)[];
};
/** An admin record whose relationships are all to-one (each names one record). */
export type ToOneRecord = Omit<JsonApiResource, 'relationships'> & { relationships: Record<string, { data: ResourceIdentifier }> };
