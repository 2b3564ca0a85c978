// More response and token shapes the e2e tests read (see bodies.ts for why tests name them).
import type { JsonApiError, TokenBody } from './bodies.js';

/** A token response from a client registered for refresh tokens: the refresh token is always there. */
export type RefreshableTokenBody = TokenBody & { refresh_token: string };

/** The protected header of a JWT, as far as the tests read it. */
export type JwtHeader = { alg?: string; typ?: string; kid?: string; jku?: string } & Record<string, unknown>;

/** The answer of the UMA permission endpoint. */
export type PermissionTicketBody = { ticket: string };

/** One requested scope in the answer of /admin/explain; `missing` names the first missing link. */
export type ExplainEntry = { scope: string; granted: boolean; missing?: string } & Record<string, unknown>;
/** The answer of /admin/explain, as far as the tests read it. */
export type ExplainBody = { granted: boolean; lifetime?: number; scopes: ExplainEntry[] } & Record<string, unknown>;

/** The SMART configuration document, as far as the tests read it. */
export type SmartConfigurationBody = { scopes_supported: string[] } & Record<string, unknown>;

/** A JSON:API error list whose errors point at the member they refuse. */
export type PointedJsonApiErrors = { errors: (JsonApiError & { source: { pointer: string } })[] };

// @types/jest types the asymmetric matchers (expect.any, stringContaining, stringMatching) as `any`, so an
// object literal that embeds one is an unsafe `any` assignment; these hand the same matchers out as
// `unknown`.
/** expect.any(type), typed as unknown. */
export const anyInstanceOf = (type: unknown): unknown => expect.any(type);
/** expect.stringContaining(sample), typed as unknown. */
export const stringContaining = (sample: string): unknown => expect.stringContaining(sample);
/** expect.stringMatching(pattern), typed as unknown. */
export const stringMatching = (pattern: string | RegExp): unknown => expect.stringMatching(pattern);
