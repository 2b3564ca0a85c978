import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import request from 'supertest';
import { add, patchAdmin, ref } from '../support/admin.js';
import { clientKey, dpopProof } from '../support/keys.js';
import { eventually, finished } from '../support/processes.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';
import { UMA_GRANT, redeem, resourceProof } from '../support/uma.js';
import { bodyOf, parsedAs, type TokenBody, type CreatedClientResult, type AccessTokenClaims, type FhirBundle } from '../support/bodies.js';

const EXAMPLES = resolve(import.meta.dirname, '../../examples');
let server: TestApp;

beforeAll(async () => {
  // Status lists of a one-second ttl: the data source sees a revocation within about two seconds.
  server = await startTestApp({ STATUS_LIST_TTL: '1' });
});

afterAll(() => server.close());

describe('examples/uma-walkthrough.sh', () => {
  it('walks PAT, resource, ticket, RPT and introspection with curl, and exits 0', async () => {
    const run = await finished(
      spawn('bash', [resolve(EXAMPLES, 'uma-walkthrough.sh')], {
        env: { PATH: process.env.PATH, AS_URL: server.url, ADMIN_URL: `${server.adminUrl}/admin`, ADMIN_TOKEN: server.adminToken },
      }),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"typ": "at+jwt"');
    expect(run.stdout).toMatch(/"permissions":\[\{"resource_id":"[A-Za-z0-9_-]+","resource_scopes":\["read"\],"exp":\d+\}\],"scope":null/);
    expect(run.stdout).toContain('"error":"invalid_grant"');
  });
});

describe('examples/glucose-data-source/server.mjs', () => {
  let dataSource: ChildProcess;
  let dataSourceUrl: string;
  let app: { clientId: string; secret: string };

  beforeAll(async () => {
    const port = await freePort();
    dataSourceUrl = `http://127.0.0.1:${port}`;
    const cast = await enrol(dataSourceUrl);
    app = cast.app;
    dataSource = spawn(process.execPath, [resolve(EXAMPLES, 'glucose-data-source/server.mjs')], {
      env: {
        PATH: process.env.PATH,
        AS_URL: server.url,
        PORT: String(port),
        CLIENT_ID: cast.rs.clientId,
        CLIENT_SECRET: cast.rs.secret,
        RESOURCE_URI: dataSourceUrl,
      },
    });
    await started(dataSource);
  });

  afterAll(async () => {
    dataSource.kill('SIGTERM');
    await finished(dataSource);
  });

  /** The ticket of the data source's 401 answer, after checking the challenge. */
  async function challenged(headers: Record<string, string> = {}): Promise<string> {
    const response = await request(dataSourceUrl).get('/Observation').set(headers);
    expect(response.status).toBe(401);
    const challenge = response.headers['www-authenticate'];
    expect(challenge).toMatch(new RegExp(`^UMA realm="[^"]+", as_uri="${server.url}", ticket="[A-Za-z0-9_-]+"$`));
    return /ticket="([^"]+)"/.exec(challenge)![1];
  }

  it('answers 401 with a UMA challenge and a fresh ticket without an RPT, then serves the Bundle for the RPT', async () => {
    const ticket = await challenged();
    expect(await challenged()).not.toBe(ticket);
    const rpt = await redeem(server, app, { ticket });
    expect(rpt.status).toBe(200);
    const response = await request(dataSourceUrl)
      .get('/Observation')
      .set('Authorization', `Bearer ${bodyOf<TokenBody>(rpt).access_token}`);
    expect(response.status).toBe(200);
    const bundle = bodyOf<FhirBundle>(response);
    expect(bundle.resourceType).toBe('Bundle');
    expect(bundle.entry.length).toBeGreaterThan(0);
    expect(bundle.entry[0].resource).toMatchObject({ resourceType: 'Observation', valueQuantity: { unit: 'mg/dL' } });
  });

  it('refuses a client credentials token without the RPT permission, and a tampered RPT', async () => {
    const rpt = bodyOf<TokenBody>(await redeem(server, app, { ticket: await challenged() })).access_token;
    const [header, payload, signature] = rpt.split('.');
    const claims = parsedAs<AccessTokenClaims>(Buffer.from(payload, 'base64url').toString());
    const tampered = [header, Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url'), signature].join('.');
    await challenged({ Authorization: `Bearer ${tampered}` });
    const plain = await request(server.url)
      .post('/oauth2/token')
      .auth(app.clientId, app.secret)
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'blood-glucose-level:read' });
    expect(plain.status).toBe(200);
    await challenged({ Authorization: `Bearer ${bodyOf<TokenBody>(plain).access_token}` });
  });

  it('refuses a revoked RPT by its status list, without introspecting it', async () => {
    const rpt = bodyOf<TokenBody>(await redeem(server, app, { ticket: await challenged() })).access_token;
    const served = await request(dataSourceUrl).get('/Observation').set('Authorization', `Bearer ${rpt}`);
    expect(served.status).toBe(200);
    const revoked = await request(server.url).post('/oauth2/revoke').auth(app.clientId, app.secret).type('form').send({ token: rpt });
    expect(revoked.status).toBe(200);
    const refused = await eventually(async () => {
      const response = await request(dataSourceUrl).get('/Observation').set('Authorization', `Bearer ${rpt}`);
      return response.status === 401 ? response : undefined;
    });
    expect(bodyOf<{ error_description: string }>(refused).error_description).toBe('the token is revoked (status list)');
  });

  it('serves a DPoP-bound RPT only with a proof of its key', async () => {
    const key = await clientKey('ES256');
    const rpt = bodyOf<TokenBody>(
      await redeem(server, app, { ticket: await challenged() }, { DPoP: await dpopProof(key, `${server.url}/oauth2/token`) }),
    ).access_token;
    await challenged({ Authorization: `Bearer ${rpt}` });
    await challenged({ Authorization: `DPoP ${rpt}` });
    const url = `${dataSourceUrl}/Observation`;
    const response = await request(dataSourceUrl)
      .get('/Observation')
      .set('Authorization', `DPoP ${rpt}`)
      .set('DPoP', await resourceProof(key, 'GET', url, rpt));
    expect(response.status).toBe(200);
  });
});

/** A client with a consent ticket for blood-glucose-level:read, and the data source (its umaClient) at `resourceUri`. */
async function enrol(resourceUri: string) {
  const [definition]: ({ id: number } | undefined)[] = await server.dataSource.query(`SELECT id FROM resource_definition WHERE name = 'blood-glucose-level'`);
  const [scope]: ({ id: number } | undefined)[] = definition
    ? await server.dataSource.query(`SELECT id FROM scope WHERE name = 'read' AND resource_definition_id = $1`, [definition.id])
    : [];
  const byLid = (type: string, lid: string) => ({ data: { type, lid } });
  const definitionRef = definition ? ref('resource-definition', definition.id) : byLid('resource-definition', 'def');
  const scopeRef = scope ? ref('scope', scope.id) : byLid('scope', 'read');
  const suffix = resourceUri.split(':').pop();
  const response = await patchAdmin(server, [
    add('uma-client', {
      lid: 'app',
      attributes: {
        clientId: `glucose-viewer-${suffix}-${Date.now()}`,
        clientName: 'Viewer',
        allowedScopes: 'blood-glucose-level:read',
        grantTypes: `client_credentials ${UMA_GRANT}`,
      },
    }),
    add('uma-client', {
      lid: 'rs',
      attributes: { clientId: `glucose-source-${suffix}-${Date.now()}`, clientName: 'Glucose data source', allowedScopes: 'uma_protection' },
    }),
    ...(definition ? [] : [add('resource-definition', { lid: 'def', attributes: { name: 'blood-glucose-level' } })]),
    ...(scope ? [] : [add('scope', { lid: 'read', attributes: { name: 'read' }, relationships: { resourceDefinition: definitionRef } })]),
    add('purpose', { lid: 'why', attributes: { name: 'Your doctor follows your blood glucose level' } }),
    add('capability-ticket', {
      lid: 'ticket',
      attributes: { ticketId: `glucose-${suffix}-${Date.now()}`, ticketName: 'Glucose' },
      relationships: { purpose: byLid('purpose', 'why'), umaClient: byLid('uma-client', 'app') },
    }),
    add('requested-resource', {
      lid: 'res',
      attributes: { maxPermissionDuration: 600, requestedResourceId: `glucose-${suffix}` },
      relationships: { resourceDefinition: definitionRef, umaClient: byLid('uma-client', 'app') },
    }),
    add('requested-resource-scopes', {
      relationships: { scope: scopeRef, purpose: byLid('purpose', 'why'), requestedResource: byLid('requested-resource', 'res') },
    }),
    add('requested-resources-capability-tickets', {
      relationships: { capabilityTicket: byLid('capability-ticket', 'ticket'), requestedResource: byLid('requested-resource', 'res') },
    }),
    add('data-source', {
      lid: 'ds',
      attributes: { name: 'Glucose data source', kind: 'resource-server', resourceUri },
      relationships: { umaClient: byLid('uma-client', 'rs') },
    }),
    add('data-source-resource-definitions', { relationships: { dataSource: byLid('data-source', 'ds'), resourceDefinition: definitionRef } }),
  ]);
  if (response.status !== 200) throw new Error(`not enrolled: ${JSON.stringify(response.body)}`);
  const [app, rs] = bodyOf<CreatedClientResult[]>(response);
  return {
    app: { clientId: app.data.attributes.clientId as string, secret: app.meta.clientSecret },
    rs: { clientId: rs.data.attributes.clientId as string, secret: rs.meta.clientSecret },
  };
}

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
