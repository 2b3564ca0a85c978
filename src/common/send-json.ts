import type { ServerResponse } from 'node:http';

/**
 * Writes an OAuth JSON response with the no-store headers RFC 6749 §5.1 requires, straight to
 * Node's response: on the token endpoint's hot path, Express's res.json (charset negotiation,
 * freshness checks) costs more than the rest of the answer.
 */
export function sendNoStoreJson(response: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  });
  response.end(payload);
}
