// The `flood` case's attacker (bench/README.md): wrong secrets for ever-new client ids from
// FLOOD_ADDRESSES addresses (X-Forwarded-For; the server trusts loopback), over
// FLOOD_CONNECTIONS connections, until SIGTERM; then one JSON line with the status codes.
// A process of its own, so that the measured load generator keeps its event loop.
import autocannon from 'autocannon';

const url = process.env.FLOOD_URL;
const connections = Number(process.env.FLOOD_CONNECTIONS ?? 24);
const addresses = Number(process.env.FLOOD_ADDRESSES ?? 40);
const basic = (id, secret) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

let sent = 0;
const flood = autocannon({
  url,
  method: 'POST',
  connections,
  duration: 3600,
  requests: [
    {
      setupRequest: (request) => {
        sent += 1;
        const headers = {
          Authorization: basic(`flood-${process.pid}-${sent}`, 'wrong-secret'),
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Forwarded-For': `198.51.100.${(sent % addresses) + 1}`,
        };
        return { ...request, headers, body: 'grant_type=client_credentials&scope=read' };
      },
    },
  ],
});
process.once('SIGTERM', () => flood.stop());
const result = await flood;
console.log(JSON.stringify({ requests: result.requests.total, statusCodes: result.statusCodeStats, errors: result.errors }));
