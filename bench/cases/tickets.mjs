// `tickets`: a resource-scope token covered by the bench client's consent ticket, in a database
// filled through SQL with 10,000 clients, 100,000 ticket records and 1,000 data sources
// (bench/fill-database.mjs, shared with the console benchmark). Issue 13 wants it at least 0.95x
// the plain-scope `ours` case.
import { connectEmbedded, fillDatabase } from '../fill-database.mjs';
import { CLIENT_ID, RESOURCE_SCOPE, TICKET_REQUEST_BODY } from '../lib/settings.mjs';
import { runOurs } from '../lib/servers.mjs';

// The fill also gives the bench client a ticket covering RESOURCE_SCOPE and a data source serving it (the token's aud).
async function seedTickets(dataDir) {
  const db = await connectEmbedded(dataDir);
  try {
    await fillDatabase(db, { scope: RESOURCE_SCOPE, benchClientId: CLIENT_ID });
  } finally {
    await db.end();
  }
}

export default {
  name: 'tickets',
  key: 'oursTickets',
  label: 'ours, tickets',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) => runOurs(alg, { name: 'ours, resource scope + 100k ticket records', logName: 'ours-tickets', prepare: seedTickets, body: TICKET_REQUEST_BODY }),
};
