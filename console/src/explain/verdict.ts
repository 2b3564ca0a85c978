// `GET /admin/explain` (docs/concepts/explain.md): the server's own verdict type, shared rather than copied.
export type { Covering, ScopeVerdict, Verdict } from '../../../src/tickets/access-decision.js';
