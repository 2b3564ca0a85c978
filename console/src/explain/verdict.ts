// `GET /admin/explain` (API.md §12): the server's own verdict type, shared rather than copied.
export type { Covering, ScopeVerdict, Verdict } from '../../../src/tickets/access-decision.js';
