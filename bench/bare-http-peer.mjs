// The ceiling: a bare node:http server answering every POST with a fixed JSON
// body the size of a real token response. No parsing, no auth, no signing.
//
// Env: PORT, BODY_BYTES (target body length, default 900).
// Prints one line `bare-http listening on <port>` when ready.
import http from 'node:http';

const port = Number(process.env.PORT);
const bodyBytes = Number(process.env.BODY_BYTES ?? 900);

// Pad the access_token so the whole body is exactly bodyBytes long.
function tokenResponse(size) {
  const shell = JSON.stringify({ access_token: '', token_type: 'Bearer', expires_in: 3600, scope: 'read' });
  const token = 'x'.repeat(Math.max(0, size - shell.length));
  return Buffer.from(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'read' }));
}

const body = tokenResponse(bodyBytes);
const headers = {
  'Content-Type': 'application/json',
  'Cache-Control': 'no-store',
  'Content-Length': body.length,
};

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    // Lets the bench's readiness probe (a GET) see the server is up.
    res.writeHead(405, { Allow: 'POST' }).end();
    return;
  }
  // Drain the request body before answering, like a real server must.
  req.resume();
  req.on('end', () => res.writeHead(200, headers).end(body));
});

server.listen(port, '127.0.0.1', () => {
  console.log(`bare-http listening on ${port} (${body.length} byte body)`);
});

function shutdown() {
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
