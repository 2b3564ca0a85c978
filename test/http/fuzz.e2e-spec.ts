import { connect } from 'node:net';
import fc from 'fast-check';
import request from 'supertest';
import { add, freshIds, JSON_API, JSON_PATCH, patchAdmin, ref, rowCounts } from '../support/admin.js';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';

// Hundreds of malformed requests per endpoint. Every answer must be a 4xx (or a 200 where the
// request happens to be acceptable and changes nothing), never a 5xx or a dropped connection,
// and no table may change. auth_failure is left out: counting failed authentications is its job.
const CASES_PER_ENDPOINT = Number(process.env.FUZZ_CASES ?? 250);

let server: TestApp;
let client: TestClient;
let purposeId: number;
const tally = { requests: 0, statuses: new Map<number, number>() };

beforeAll(async () => {
  server = await startTestApp({ TRUST_PROXY: 'loopback' });
  client = await createClient(server.app, { allowedScopes: 'read uma_protection' });
  [purposeId] = freshIds(1);
  await patchAdmin(server, [add('purpose', { id: purposeId, attributes: { name: 'fuzz target' } })]);
});

afterAll(async () => {
  const statuses = [...tally.statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  console.log(`fuzz: ${tally.requests} requests, statuses ${statuses}`);
  await server.close();
});

// Every byte percent-encoded: lone surrogates and NULs included, never a URIError.
const percentEncode = (value: string) => [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
// HTTP clients refuse to send control characters in header values; raw frames below cover those.
const headerSafe = (value: string) => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

function record(status: number): void {
  tally.requests += 1;
  tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
  expect(status).toBeGreaterThanOrEqual(200);
  expect(status).toBeLessThan(500);
}

const nasty = fc.oneof(
  fc.string({ maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\r\n', '__proto__', 'constructor', 'x'.repeat(5000), '%00', '%zz', '\uD800', '🩸'),
);
const hostileJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    nasty,
    fc.double(),
    fc.constantFrom(1e308, -1, 0, 2 ** 31, 2 ** 53 + 1, null, true, [], {}),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(nasty, fc.constantFrom('__proto__', 'constructor', 'grant_type', 'scope', 'client_id', 'client_secret', 'token', 'resource')),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;
const deeplyNested = fc.integer({ min: 100, max: 5000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth));
const contentTypes = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/json',
  'text/plain',
  'application/json; charset=utf-16',
  '',
  JSON_API,
  JSON_PATCH,
  'multipart/form-data; boundary=zz',
  'application/x-www-form-urlencoded; charset=latin1',
);
const bodies = fc.oneof(
  hostileJson.map((value) => JSON.stringify(value)),
  deeplyNested,
  fc
    .array(
      fc.tuple(
        fc.constantFrom('grant_type', 'scope', 'client_id', 'client_secret', 'token', 'token_type_hint', '__proto__', 'refresh_token', 'resource', 'resource'),
        nasty,
      ),
      { maxLength: 6 },
    )
    .map((pairs) => pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')),
  fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.constant('grant_type=client_credentials&grant_type=client_credentials&scope=read'),
);

function authorizations(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(basic(client.clientId, client.clientSecret)),
    fc.constant(`Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}x`),
    nasty.map((value) => headerSafe(`Basic ${value}`)),
    nasty.map((value) => headerSafe(`Bearer ${value}`)),
  );
}

async function assertNothingChanged(run: () => Promise<void>): Promise<void> {
  const before = await rowCounts(server);
  await run();
  expect(await rowCounts(server)).toEqual(before);
}

async function stillServesTokens(): Promise<void> {
  const response = await request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(client.clientId, client.clientSecret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read' });
  expect(response.status).toBe(200);
}

let address = 0;
const nextAddress = () => `203.0.113.${(address = (address % 250) + 1)}`;

describe.each(['/oauth2/token', '/oauth2/introspect', '/oauth2/revoke'])('fuzzing POST %s', (path) => {
  it(`answers ${CASES_PER_ENDPOINT} malformed requests with 4xx, changing nothing`, async () => {
    await assertNothingChanged(async () => {
      await fc.assert(
        fc.asyncProperty(contentTypes, bodies, authorizations(), async (type, body, authorization) => {
          let call = request(server.url).post(path).set('X-Forwarded-For', nextAddress());
          if (type) call = call.set('Content-Type', type);
          if (authorization) call = call.set('Authorization', authorization);
          const response = await call.send(body);
          record(response.status);
          if (response.status >= 400) expect(typeof bodyOf<OAuthErrorBody>(response).error).toBe('string');
        }),
        { numRuns: CASES_PER_ENDPOINT },
      );
    });
    await stillServesTokens();
  });
});

describe('fuzzing the admin interface', () => {
  const types = fc.constantFrom(
    'purpose',
    'capability-ticket',
    'requested-resource',
    'requested-resource-scopes',
    'requested-resources-capability-tickets',
    'uma-client',
    'resource-definition',
    'scope',
    'data-source',
    'data-source-resource-definitions',
    'audit-event',
    'explain',
    'nothing',
    '__proto__',
  );
  // A valid template with exactly one defect, so that no case can succeed.
  const brokenOperations = fc
    .tuple(types, hostileJson, fc.constantFrom('op', 'path', 'value', 'type', 'attributes', 'relationships', 'id'))
    .map(([type, junk, where]) => {
      const operation: Record<string, unknown> = {
        op: 'add',
        path: `/${type}`,
        value: { type, attributes: { name: '\u0000' }, relationships: { purpose: ref('purpose', 2_000_000_123) } },
      };
      if (where === 'op' || where === 'path') operation[where] = junk;
      else (operation.value as Record<string, unknown>)[where] = where === 'id' ? -1 : junk;
      return operation;
    });
  const patchBodies = fc.oneof(
    hostileJson.map((value) => JSON.stringify(value)),
    deeplyNested,
    fc.array(brokenOperations, { minLength: 1, maxLength: 5 }).map((operations) => JSON.stringify(operations)),
  );

  it(`answers ${CASES_PER_ENDPOINT} malformed PATCH /admin with 4xx, changing nothing`, async () => {
    await assertNothingChanged(async () => {
      await fc.assert(
        fc.asyncProperty(patchBodies, fc.constantFrom(JSON_PATCH, JSON_API, 'application/json'), async (body, type) => {
          const response = await request(server.adminUrl).patch('/admin').set('Authorization', server.adminToken).set('Content-Type', type).send(body);
          record(response.status);
          expect(response.status).toBeGreaterThanOrEqual(400);
        }),
        { numRuns: CASES_PER_ENDPOINT },
      );
    });
  });

  it(`answers ${CASES_PER_ENDPOINT} malformed plain JSON:API requests with 4xx, changing nothing`, async () => {
    const methods = fc.constantFrom<'get' | 'post' | 'patch' | 'delete'>('get', 'post', 'patch', 'delete');
    const paths = fc.oneof(
      types.map((type) => `/admin/${type}`),
      // A DELETE of an existing record is a valid request whatever its body: a generated id that
      // happens to be a record's ("2") is moved past every id the suites use.
      fc.tuple(types, nasty).map(([type, id]) => `/admin/${type}/${percentEncode(/^[1-9]\d{0,9}$/.test(id) ? '2000000999' : id)}`),
      fc.tuple(types, nasty).map(([type, query]) => `/admin/${type}?include=${percentEncode(query)}&page[size]=${percentEncode(query)}`),
      fc.constant(`/admin/purpose/${0}`),
    );
    await assertNothingChanged(async () => {
      await fc.assert(
        fc.asyncProperty(methods, paths, patchBodies, async (method, path, body) => {
          const response = await request(server.adminUrl)[method](path).set('Authorization', server.adminToken).set('Content-Type', JSON_API).send(body);
          record(response.status);
          if (method !== 'get') expect(response.status).toBeGreaterThanOrEqual(400);
        }),
        { numRuns: CASES_PER_ENDPOINT },
      );
    });
  });

  it(`answers ${CASES_PER_ENDPOINT} malformed explain queries with 4xx (or a verdict), changing nothing`, async () => {
    const parameter = fc
      .tuple(fc.constantFrom('client', 'scope', 'resource', 'include', '__proto__'), nasty)
      .map(([name, value]) => `${name}=${percentEncode(value)}`);
    await assertNothingChanged(async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(parameter, { maxLength: 6 }), async (parameters) => {
          record(
            (
              await request(server.adminUrl)
                .get(`/admin/explain?${parameters.join('&')}`)
                .set('Authorization', server.adminToken)
            ).status,
          );
        }),
        { numRuns: CASES_PER_ENDPOINT },
      );
    });
  });

  it('still has the record it started with', async () => {
    expect((await request(server.adminUrl).get(`/admin/purpose/${purposeId}`).set('Authorization', server.adminToken)).status).toBe(200);
  });
});

describe('broken HTTP framing', () => {
  const raw = (port: number, text: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('close', () => resolve(received));
      socket.on('error', () => resolve(received));
      socket.setTimeout(3_000, () => socket.destroy());
      socket.end(text);
    });
  const frames = [
    'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nContent-Length: 20\r\n\r\ngrant_type',
    'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nzz\r\nxx\r\n',
    'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n',
    'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
    'GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n',
    'GET /oauth2/jwks HTTP/9.9\r\n\r\n',
    'NONSENSE\r\n\r\n',
    `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    'PATCH /admin HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n[',
  ];

  it.each(frames.map((frame, index) => [index, frame]))('answers broken frame %i without a 5xx, and keeps serving', async (_index, frame) => {
    for (const port of [Number(new URL(server.url).port), Number(new URL(server.adminUrl).port)]) {
      const answer = await raw(port, frame);
      tally.requests += 1;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      if (status) expect(status).toBeLessThan(500);
    }
    await stillServesTokens();
  });
});
