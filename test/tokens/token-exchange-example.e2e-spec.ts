/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   JSON:API and FHIR answers are read member by member here (supertest types every body as any). */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { add, getAdmin, patchAdmin } from '../support/admin.js';
import { basic } from '../support/factories.js';
import { bodyOf, type CreatedClientResult } from '../support/bodies.js';
import { finished } from '../support/processes.js';
import { freePort, freshDatabase, startTestApp, type TestApp } from '../support/test-app.js';

// examples/glucose-data-source/server.mjs with DOWNSTREAM_URI (docs/guides/token-exchange.md): a
// facade that asks a second data source on the client's behalf with an exchanged token.

const EXAMPLES = resolve(import.meta.dirname, '../../examples');
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

let server: TestApp;
let facadeUrl: string;
let labUrl: string;
let app: { clientId: string; secret: string };
let facadeClientId: string;
let delegationId: string;
const running: ChildProcess[] = [];

const lid = (type: string, name: string) => ({ data: { type, lid: name } });

beforeAll(async () => {
  // A database of its own: the example serves the definition named blood-glucose-level.
  server = await startTestApp({ DATABASE_URL: await freshDatabase('exchange_example') });
  facadeUrl = `http://127.0.0.1:${await freePort()}`;
  labUrl = `http://127.0.0.1:${await freePort()}`;
  const response = await patchAdmin(server, [
    add('resource-definition', { lid: 'def', attributes: { name: 'blood-glucose-level' } }),
    add('scope', { lid: 'read', attributes: { name: 'read' }, relationships: { resourceDefinition: lid('resource-definition', 'def') } }),
    add('uma-client', { lid: 'app', attributes: { clientId: 'exchange-app', clientName: 'Glucose app', allowedScopes: 'blood-glucose-level:read' } }),
    add('uma-client', {
      lid: 'facade-rs',
      attributes: { clientId: 'exchange-facade', clientName: 'Facade', allowedScopes: 'uma_protection', grantTypes: `client_credentials ${EXCHANGE}` },
    }),
    add('uma-client', { lid: 'lab-rs', attributes: { clientId: 'exchange-lab', clientName: 'Laboratory', allowedScopes: 'uma_protection' } }),
    ...[
      ['facade', 'Facade', facadeUrl, 'facade-rs'],
      ['lab', 'Laboratory', labUrl, 'lab-rs'],
    ].flatMap(([name, label, uri, client]) => [
      add('data-source', {
        lid: name,
        attributes: { name: label, kind: 'resource-server', resourceUri: uri },
        relationships: { umaClient: lid('uma-client', client) },
      }),
      add('data-source-resource-definitions', {
        relationships: { dataSource: lid('data-source', name), resourceDefinition: lid('resource-definition', 'def') },
      }),
    ]),
    add('data-source-delegation', {
      lid: 'delegation',
      attributes: { scopes: [] },
      relationships: { from: lid('data-source', 'facade'), to: lid('data-source', 'lab') },
    }),
    add('purpose', { lid: 'why', attributes: { name: 'Your doctor follows your glucose' } }),
    add('capability-ticket', {
      lid: 'ticket',
      attributes: { ticketId: 'exchange-example-ticket', ticketName: 'Glucose' },
      relationships: { purpose: lid('purpose', 'why'), umaClient: lid('uma-client', 'app') },
    }),
    add('requested-resource', {
      lid: 'res',
      attributes: { maxPermissionDuration: 3600, requestedResourceId: 'glucose-of-patient-1' },
      relationships: { resourceDefinition: lid('resource-definition', 'def'), umaClient: lid('uma-client', 'app') },
    }),
    add('requested-resource-scopes', {
      relationships: { scope: lid('scope', 'read'), purpose: lid('purpose', 'why'), requestedResource: lid('requested-resource', 'res') },
    }),
    add('requested-resources-capability-tickets', {
      relationships: { capabilityTicket: lid('capability-ticket', 'ticket'), requestedResource: lid('requested-resource', 'res') },
    }),
  ]);
  expect(response.status).toBe(200);
  const results = bodyOf<CreatedClientResult[]>(response);
  const secretOf = (clientId: string) => results.find((result) => result.data?.attributes.clientId === clientId)!.meta.clientSecret;
  app = { clientId: 'exchange-app', secret: secretOf('exchange-app') };
  facadeClientId = 'exchange-facade';
  delegationId = results.find((result) => result.data?.type === 'data-source-delegation')!.data.id;

  running.push(await startDataSource(labUrl, 'exchange-lab', secretOf('exchange-lab'), {}));
  running.push(await startDataSource(facadeUrl, 'exchange-facade', secretOf('exchange-facade'), { DOWNSTREAM_URI: labUrl }));
}, 120_000);

afterAll(async () => {
  for (const child of running) {
    child.kill('SIGTERM');
    await finished(child);
  }
  await server?.close();
});

async function appToken(): Promise<string> {
  const response = await request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(app.clientId, app.secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'blood-glucose-level:read', resource: facadeUrl });
  expect(response.status).toBe(200);
  return response.body.access_token as string;
}

describe('the example facade with DOWNSTREAM_URI', () => {
  it("answers the second data source's Bundle, asked with a token exchanged on the client's behalf and accounted for", async () => {
    const token = await appToken();
    const response = await request(facadeUrl).get('/api/Observation').set('Authorization', `Bearer ${token}`);
    expect(response.status).toBe(200);
    expect(response.body.resourceType).toBe('Bundle');
    expect(response.body.entry[0].fullUrl).toContain(labUrl);
    const disclosed = await getAdmin(server, `/admin/disclosure?filter[parentJti]=${decodeJwt(token).jti as string}`);
    const rows = (disclosed.body.data as { attributes: Record<string, unknown> }[]).map((record) => record.attributes);
    expect(rows).toEqual([expect.objectContaining({ clientId: app.clientId, actor: [facadeClientId] })]);
  });

  it('answers 403 once the delegation is removed: the authorization server refuses the exchange', async () => {
    const token = await appToken();
    const removed = await request(server.adminUrl).delete(`/admin/data-source-delegation/${delegationId}`).set('Authorization', server.adminToken);
    expect(removed.status).toBe(204);
    const response = await request(facadeUrl).get('/api/Observation').set('Authorization', `Bearer ${token}`);
    expect(response.status).toBe(403);
    expect(response.body.error_description).toContain('invalid_target');
  });

  it('answers 401 without a token, and for a token meant for another audience', async () => {
    expect((await request(facadeUrl).get('/api/Observation')).status).toBe(401);
    const labToken = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(app.clientId, app.secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'blood-glucose-level:read', resource: labUrl });
    const response = await request(facadeUrl)
      .get('/api/Observation')
      .set('Authorization', `Bearer ${labToken.body.access_token as string}`);
    expect(response.status).toBe(401);
  });
});

/** Starts the example data source; resolves once it listens, rejects if it exits first. */
function startDataSource(url: string, clientId: string, secret: string, extra: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [resolve(EXAMPLES, 'glucose-data-source/server.mjs')], {
    env: { PATH: process.env.PATH, AS_URL: server.url, PORT: new URL(url).port, CLIENT_ID: clientId, CLIENT_SECRET: secret, RESOURCE_URI: url, ...extra },
  });
  return new Promise((done, fail) => {
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      if (output.includes('glucose data source on port')) done(child);
    });
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => fail(new Error(`the data source exited (${code}): ${output}`)));
  });
}
