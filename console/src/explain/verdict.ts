/** `GET /admin/explain` (API.md §12): what the token endpoint would decide, and why. */
export type Covering = {
  requestedResource: { id: string | number; requestedResourceId: string; maxPermissionDuration: number };
  capabilityTicket: { id: string | number; ticketId: string; ticketName: string };
  purpose: { id: string | number; name: string };
};

export type ScopeVerdict = { scope: string; granted: boolean; allowed: boolean; covering?: Covering[]; missing?: string };

export type Verdict = {
  client: string;
  granted: boolean;
  scope: string;
  lifetime: number | null;
  aud: string | string[] | null;
  scopes: ScopeVerdict[];
  /** A refusal that is not about one scope (e.g. a resource indicator), when the server gives one. */
  missing?: string;
};
