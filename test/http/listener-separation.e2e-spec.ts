import request from 'supertest';
import { add, JSON_PATCH, rowCounts } from '../support/admin.js';
import { RawConnection, type RawResponse } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// The request-target forms that once reached admin routes on the public port through a prefix
// check on the raw URL (docs/operations/security.md, regression list).
function targetForms(path: string): string[] {
  const name = path.slice(1);
  const [first, rest] = [name.charAt(0), name.slice(1)];
  return [
    path,
    `http://x${path}`,
    `http://127.0.0.1${path}?page[size]=1`,
    `/${path}`,
    `/%${first.charCodeAt(0).toString(16)}${rest}`,
    path.toUpperCase(),
    `/${first.toUpperCase()}${rest}`,
    `/.${path}`,
    `/x/..${path}`,
    `${path}/.`,
    `${path}/`,
    `${path}?x=1`,
  ];
}

const ADMIN_ONLY = ['/admin', '/admin/uma-client', '/metrics', '/docs', '/docs-json', '/docs-yaml', '/console', '/console/index.html'];
const PUBLIC_ONLY = ['/oauth2/jwks', '/.well-known/oauth-authorization-server', '/oauth2/token'];

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

async function send(port: number, method: string, target: string, headers: Record<string, string> = {}, body = ''): Promise<RawResponse> {
  const connection = await RawConnection.open(port);
  try {
    return await connection.send(method, target, headers, body);
  } finally {
    connection.destroy();
  }
}

const portOf = (url: string) => Number(new URL(url).port);

describe('listener separation', () => {
  it('answers 404 on the public port to admin, metrics, docs and console paths in every request-target form', async () => {
    const answers: string[] = [];
    for (const path of ADMIN_ONLY) {
      for (const target of targetForms(path)) {
        const response = await send(portOf(server.url), 'GET', target, { Authorization: server.adminToken });
        answers.push(`${target} ${response.status}`);
      }
    }
    expect(answers.filter((answer) => !answer.endsWith(' 404'))).toEqual([]);
  });

  it('never writes a record through the public port, whatever the form of PATCH /admin', async () => {
    const before = await rowCounts(server);
    const body = JSON.stringify([add('purpose', { attributes: { name: 'through the public port' } })]);
    const statuses: string[] = [];
    for (const target of targetForms('/admin')) {
      const response = await send(
        portOf(server.url),
        'PATCH',
        target,
        { Authorization: server.adminToken, 'Content-Type': JSON_PATCH, ApiVersion: 'v1.0' },
        body,
      );
      statuses.push(`${target} ${response.status}`);
    }
    expect(statuses.filter((status) => !status.endsWith(' 404'))).toEqual([]);
    expect(await rowCounts(server)).toEqual(before);
    // The same request on the admin port writes the record: the body above was a valid one.
    const admin = await send(
      portOf(server.adminUrl),
      'PATCH',
      'http://x/admin',
      { Authorization: server.adminToken, 'Content-Type': JSON_PATCH, ApiVersion: 'v1.0' },
      body,
    );
    expect(admin.status).toBe(200);
    expect((await rowCounts(server)).purpose).toBe(before.purpose + 1);
  });

  it('answers the admin interface on the admin port, in the absolute form too', async () => {
    const response = await send(portOf(server.adminUrl), 'GET', `http://x/admin/uma-client`, { Authorization: server.adminToken });
    expect(response.status).toBe(200);
    expect((await send(portOf(server.adminUrl), 'GET', '/metrics')).status).toBe(200);
    expect((await send(portOf(server.adminUrl), 'GET', '/console')).status).toBe(200);
    expect((await send(portOf(server.adminUrl), 'GET', '/docs-json')).status).toBe(200);
  });

  it('answers 404 on the admin port to public paths in every request-target form', async () => {
    const answers: string[] = [];
    for (const path of PUBLIC_ONLY) {
      for (const target of targetForms(path)) {
        for (const method of ['GET', 'POST']) {
          const response = await send(
            portOf(server.adminUrl),
            method,
            target,
            { 'Content-Type': 'application/x-www-form-urlencoded' },
            'grant_type=client_credentials',
          );
          answers.push(`${method} ${target} ${response.status}`);
        }
      }
    }
    expect(answers.filter((answer) => !answer.endsWith(' 404'))).toEqual([]);
  });

  it('answers the public endpoints on the public port, in the absolute form too', async () => {
    expect((await send(portOf(server.url), 'GET', `http://x/oauth2/jwks`)).status).toBe(200);
    expect((await send(portOf(server.url), 'GET', '/.well-known/oauth-authorization-server')).status).toBe(200);
  });

  it('serves health on both ports', async () => {
    for (const url of [server.url, server.adminUrl]) {
      expect((await request(url).get('/health/live')).status).toBe(200);
      expect((await send(portOf(url), 'GET', 'http://x/health/live')).status).toBe(200);
    }
  });

  it('answers a 404 in the same JSON format on either port', async () => {
    const response = await request(server.url).get('/metrics');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Cannot GET /metrics', error: 'Not Found', statusCode: 404 });
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });
});
