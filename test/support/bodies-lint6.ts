// Response shapes of the disclosure admin type (see bodies.ts: supertest types every body as `any`).
import type { CoveringChain } from '../../src/tickets/access-decision.js';

/** A disclosure's attributes as the admin interface answers them. */
export type DisclosureAttributes = {
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
};
export type DisclosureResource = { type: string; id: string; attributes: DisclosureAttributes };
/** GET /admin/disclosure/{id}. */
export type DisclosureDocument = { data: DisclosureResource };
/** A page of GET /admin/disclosure: newest first, with the total of every matching row. */
export type DisclosureList = { data: DisclosureResource[]; meta: { total: number }; links: Record<string, string | null> };
