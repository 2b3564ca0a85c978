/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   OAuth answers are read member by member here (supertest types every body as any). */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import request from 'supertest';
import { add, patchAdmin, ref } from '../support/admin.js';
import { bodyOf, type CreatedClientResult } from '../support/bodies.js';
import { finished } from '../support/processes.js';
import { freePort, freshDatabase, startTestApp, type TestApp } from '../support/test-app.js';
import { CrlServer, testLeaf, testRoot, type TestIssued } from '../support/udap-anchors.js';
import {
  clientRowId,
  createTrustCommunity,
  hl7B2b,
  postTokenForm,
  registerUdapMember,
  udapClientAssertion,
  udapTokenParameters,
} from '../support/udap-members.js';

// examples/glucose-data-source/server.mjs with PURPOSE_OF_USE (docs/guides/udap.md#what-a-resource-server-checks):
// GET /b2b/Observation serves a UDAP member's token only for the purpose of use it holds it to.

const EXAMPLES = resolve(import.meta.dirname, '../../examples');
const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';
const HPAYMT = 'urn:oid:2.16.840.1.113883.5.8#HPAYMT';
const SAN = 'https://clinic.example/udap';

let server: TestApp;
let crls: CrlServer;
let leaf: TestIssued;
let memberId: string;
let dataSource: ChildProcess;
let dataSourceUrl: string;

beforeAll(async () => {
  // A database of its own: the example serves the definition named blood-glucose-level.
  server = await startTestApp({ UDAP: 'true', JWKS_URI_ALLOW_HTTP: 'true', DATABASE_URL: await freshDatabase('udap_example') });
  crls = await CrlServer.start();
  const root = await testRoot('CN=Example Community Root', crls);
  leaf = await testLeaf('CN=Clinic Example', SAN, root);
  dataSourceUrl = `http://127.0.0.1:${await freePort()}`;

  const enrolled = await patchAdmin(server, [
    add('resource-definition', { lid: 'def', attributes: { name: 'blood-glucose-level' } }),
    add('scope', { lid: 'read', attributes: { name: 'read' }, relationships: { resourceDefinition: { data: { type: 'resource-definition', lid: 'def' } } } }),
    add('uma-client', { lid: 'rs', attributes: { clientId: 'example-glucose-source', clientName: 'Glucose data source', allowedScopes: 'uma_protection' } }),
    add('data-source', {
      lid: 'ds',
      attributes: { name: 'Glucose data source', kind: 'resource-server', resourceUri: dataSourceUrl },
      relationships: { umaClient: { data: { type: 'uma-client', lid: 'rs' } } },
    }),
    add('data-source-resource-definitions', {
      relationships: { dataSource: { data: { type: 'data-source', lid: 'ds' } }, resourceDefinition: { data: { type: 'resource-definition', lid: 'def' } } },
    }),
  ]);
  expect(enrolled.status).toBe(200);
  const rs = bodyOf<CreatedClientResult[]>(enrolled)[2];
  await createTrustCommunity(server, {
    name: 'Example',
    communityUri: 'urn:example:community',
    anchors: [root.pem],
    scopeCeiling: 'blood-glucose-level:read',
    purposesOfUse: [TREAT, HPAYMT],
  });

  const registered = await registerUdapMember(server, {
    leaf,
    san: SAN,
    clientName: 'Clinic Example',
    contacts: ['mailto:it@clinic.example'],
    scope: 'blood-glucose-level:read',
  });
  expect(registered.status).toBe(201);
  memberId = registered.body.client_id as string;
  const row = await clientRowId(server, memberId);
  const [{ id: definition }] = await server.dataSource.query<{ id: number }[]>(`SELECT id FROM resource_definition WHERE name = 'blood-glucose-level'`);
  const [{ id: scope }] = await server.dataSource.query<{ id: number }[]>(`SELECT id FROM scope WHERE resource_definition_id = $1`, [definition]);
  // Two tickets: one whose purpose covers treatment, one whose purpose covers payment.
  const tickets = [TREAT, HPAYMT].flatMap((code, index) => [
    add('purpose', { lid: `p${index}`, attributes: { name: `Purpose ${index}`, purposesOfUse: [code] } }),
    add('capability-ticket', {
      lid: `t${index}`,
      attributes: { ticketId: `example-b2b-${index}`, ticketName: `Ticket ${index}` },
      relationships: { purpose: { data: { type: 'purpose', lid: `p${index}` } }, umaClient: ref('uma-client', row) },
    }),
    add('requested-resource', {
      lid: `r${index}`,
      attributes: { maxPermissionDuration: 3600, requestedResourceId: `glucose-${index}` },
      relationships: { resourceDefinition: ref('resource-definition', definition), umaClient: ref('uma-client', row) },
    }),
    add('requested-resource-scopes', {
      relationships: {
        scope: ref('scope', scope),
        purpose: { data: { type: 'purpose', lid: `p${index}` } },
        requestedResource: { data: { type: 'requested-resource', lid: `r${index}` } },
      },
    }),
    add('requested-resources-capability-tickets', {
      relationships: {
        capabilityTicket: { data: { type: 'capability-ticket', lid: `t${index}` } },
        requestedResource: { data: { type: 'requested-resource', lid: `r${index}` } },
      },
    }),
  ]);
  expect((await patchAdmin(server, tickets)).status).toBe(200);

  dataSource = spawn(process.execPath, [resolve(EXAMPLES, 'glucose-data-source/server.mjs')], {
    env: {
      PATH: process.env.PATH,
      AS_URL: server.url,
      PORT: new URL(dataSourceUrl).port,
      CLIENT_ID: 'example-glucose-source',
      CLIENT_SECRET: rs.meta.clientSecret,
      RESOURCE_URI: dataSourceUrl,
      PURPOSE_OF_USE: TREAT,
    },
  });
  await started(dataSource);
}, 120_000);

afterAll(async () => {
  if (dataSource) {
    dataSource.kill('SIGTERM');
    await finished(dataSource);
  }
  await server?.close();
  await crls?.close();
});

/** The member's token for the data source, asserting `purposeOfUse`. */
async function tokenFor(purposeOfUse: string): Promise<string> {
  const assertion = await udapClientAssertion(server, { leaf, chain: [] }, memberId, {
    extensions: { 'hl7-b2b': hl7B2b({ id: 'https://clinic.example/Organization/1', name: 'Clinic Example' }, [purposeOfUse]) },
  });
  const response = await postTokenForm(server, udapTokenParameters(assertion, { scope: 'blood-glucose-level:read', resource: dataSourceUrl }));
  expect(response.status).toBe(200);
  return response.body.access_token as string;
}

describe('the example data source with PURPOSE_OF_USE', () => {
  it('serves a member whose token asserts that purpose of use and whose ticket covered it', async () => {
    const response = await request(dataSourceUrl)
      .get('/b2b/Observation')
      .set('Authorization', `Bearer ${await tokenFor(TREAT)}`);
    expect(response.status).toBe(200);
    expect(response.body.resourceType).toBe('Bundle');
  });

  it('refuses a token issued for another purpose of use (403)', async () => {
    const response = await request(dataSourceUrl)
      .get('/b2b/Observation')
      .set('Authorization', `Bearer ${await tokenFor(HPAYMT)}`);
    expect(response.status).toBe(403);
    expect(response.body.error_description).toContain(`does not assert the purpose of use ${TREAT}`);
  });

  it('answers 401 with a Bearer challenge without a token', async () => {
    const response = await request(dataSourceUrl).get('/b2b/Observation');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm=/);
  });
});

/** Resolves once the data source says it listens; rejects if it exits first. */
function started(child: ChildProcess): Promise<void> {
  return new Promise((done, fail) => {
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      if (output.includes('glucose data source on port')) done();
    });
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => fail(new Error(`the data source exited (${code}): ${output}`)));
  });
}
