// The `register-flood` case's attacker (bench/README.md): POST /oauth2/register over
// FLOOD_CONNECTIONS connections until SIGTERM, from FLOOD_ADDRESSES addresses in turn
// (X-Forwarded-For; the server trusts loopback). A share FLOOD_VALID_SHARE of the requests carry
// the valid initial access token FLOOD_IAT and register a client_secret_basic client (one
// transaction and one slow hash each, under the server's bound); the others carry a random,
// unknown token (a failure counted toward the address's limit). Then one JSON line with the
// status codes and the rate.
import { randomBytes } from 'node:crypto';
import { flood } from './flood.mjs';

const url = process.env.FLOOD_URL;
const connections = Number(process.env.FLOOD_CONNECTIONS ?? 24);
const addresses = Number(process.env.FLOOD_ADDRESSES ?? 40);
const validShare = Number(process.env.FLOOD_VALID_SHARE ?? 0.5);
const iat = process.env.FLOOD_IAT ?? '';
const body = JSON.stringify({ client_name: 'Flood gateway', token_endpoint_auth_method: 'client_secret_basic', scope: 'read' });

let sent = 0;
let valid = 0;
await flood({
  url,
  connections,
  nextRequest: () => {
    sent += 1;
    // Spread evenly: request n is valid when the running share falls below the wanted one.
    const useValid = iat !== '' && valid < validShare * sent;
    if (useValid) valid += 1;
    const headers = {
      Authorization: `Bearer ${useValid ? iat : randomBytes(32).toString('base64url')}`,
      'Content-Type': 'application/json',
      'X-Forwarded-For': `198.51.100.${(sent % addresses) + 1}`,
    };
    return { headers, body };
  },
  summary: () => ({ withValidToken: valid }),
});
