import type { ServerResponse } from 'node:http';
import { JSON_API } from './request-body.js';

/** A JSON:API response; administrative answers are never cached and always in English. */
export function sendJsonApi(
  response: ServerResponse,
  status: number,
  body: object | undefined,
  contentType = JSON_API,
  headers: Record<string, string> = {},
): void {
  const payload = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    ...(body === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) }),
    'Cache-Control': 'no-store',
    'Content-Language': 'en',
  });
  response.end(payload);
}
