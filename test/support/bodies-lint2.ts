// More response and token shapes the e2e tests read (see bodies.ts for why tests name them).
import type { TokenBody } from './bodies.js';

/** A token response from a client registered for refresh tokens: the refresh token is always there. */
export type RefreshableTokenBody = TokenBody & { refresh_token: string };

/** The protected header of a JWT, as far as the tests read it. */
export type JwtHeader = { alg?: string; typ?: string; kid?: string; jku?: string } & Record<string, unknown>;

/** The answer of the UMA permission endpoint. */
export type PermissionTicketBody = { ticket: string };

/** The answer of /admin/explain, as far as the tests read it: the first missing link per scope. */
export type ExplainBody = { scopes: { scope?: string; missing?: string }[] } & Record<string, unknown>;

// @types/jest types the asymmetric matchers (expect.any, expect.stringContaining) as `any`, so an
// object literal that embeds one is an unsafe `any` assignment; these hand the same matchers out as
// `unknown`.
/** expect.any(type), typed as unknown. */
export const anyInstanceOf = (type: unknown): unknown => expect.any(type);
/** expect.stringContaining(sample), typed as unknown. */
export const stringContaining = (sample: string): unknown => expect.stringContaining(sample);
