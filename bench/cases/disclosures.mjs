// `disclosures`: a resource-scope token whose disclosure row (docs/guides/consent-withdrawal.md)
// is committed before it is answered; the database holds only the bench client's ticket and its
// data source, so the figure is that token's cost against the plain-scope `ours` case.
import { TICKET_REQUEST_BODY } from '../lib/settings.mjs';
import { runOurs, seedBenchTicket } from '../lib/servers.mjs';

export default {
  name: 'disclosures',
  key: 'oursDisclosures',
  label: 'ours, disclosure',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) =>
    runOurs(alg, { name: 'ours, resource scope with its disclosure row', logName: 'ours-disclosures', prepare: seedBenchTicket, body: TICKET_REQUEST_BODY }),
};
