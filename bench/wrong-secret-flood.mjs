// The `flood` case's attacker (bench/README.md): wrong secrets for ever-new client ids from
// FLOOD_ADDRESSES addresses (X-Forwarded-For; the server trusts loopback), over
// FLOOD_CONNECTIONS connections, until SIGTERM; then one JSON line with the status codes.
import { flood } from './flood.mjs';

const addresses = Number(process.env.FLOOD_ADDRESSES ?? 40);
const basic = (id, secret) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

let sent = 0;
await flood({
  url: process.env.FLOOD_URL,
  connections: Number(process.env.FLOOD_CONNECTIONS ?? 24),
  nextRequest: () => {
    sent += 1;
    const headers = {
      Authorization: basic(`flood-${process.pid}-${sent}`, 'wrong-secret'),
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Forwarded-For': `198.51.100.${(sent % addresses) + 1}`,
    };
    return { headers, body: 'grant_type=client_credentials&scope=read' };
  },
});
