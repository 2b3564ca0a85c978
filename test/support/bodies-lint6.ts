// Response shapes of the disclosure admin type (see bodies.ts: supertest types every body as `any`).
import type { DisclosureView } from '../../src/disclosures/disclosure-reads.js';

/** A disclosure's attributes as the admin interface answers them (the server's view, less its id). */
export type DisclosureAttributes = Omit<DisclosureView, 'id'>;
export type DisclosureResource = { type: string; id: string; attributes: DisclosureAttributes };
/** GET /admin/disclosure/{id}. */
export type DisclosureDocument = { data: DisclosureResource };
/** A page of GET /admin/disclosure: newest first, with the total of every matching row. */
export type DisclosureList = { data: DisclosureResource[]; meta: { total: number }; links: Record<string, string | null> };
