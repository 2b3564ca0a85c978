import request from 'supertest';
import { add, freshIds, patchAdmin } from '../support/admin.js';
import { consentWorld, enrolDataSource, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, jwtPayload, type TokenBody, type OAuthErrorBody, type IntrospectionBody, type CreatedClientResult } from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

function ask(grant: Pick<ConsentGrant, 'clientId' | 'secret'>, scope: string, resources: string[] = [], target = server) {
  const body = new URLSearchParams([['grant_type', 'client_credentials'], ['scope', scope], ...resources.map((uri): [string, string] => ['resource', uri])]);
  return request(target.url).post('/oauth2/token').set('Authorization', basic(grant.clientId, grant.secret)).type('form').send(body.toString());
}

function askJson(grant: Pick<ConsentGrant, 'clientId' | 'secret'>, body: Record<string, unknown>) {
  return request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(grant.clientId, grant.secret))
    .type('json')
    .send(JSON.stringify({ grant_type: 'client_credentials', ...body }));
}

const audOf = (response: request.Response) => jwtPayload(bodyOf<TokenBody>(response).access_token).aud;

describe('the aud of a token (docs/concepts/audience.md)', () => {
  it('is the issuer when no data source serves the requested definition', async () => {
    const grant = await consentWorld(server);
    expect(audOf(await ask(grant, `${grant.definitionName}:read`))).toBe(server.url);
  });

  it("is the data source's resourceUri, as a string, when one serves it", async () => {
    const grant = await consentWorld(server);
    const source = await enrolDataSource(server, [grant.ids.definition]);
    expect(audOf(await ask(grant, `${grant.definitionName}:read`))).toBe(source.resourceUri);
  });

  it('is an array of every resourceUri when two data sources serve it', async () => {
    const grant = await consentWorld(server);
    const first = await enrolDataSource(server, [grant.ids.definition]);
    const second = await enrolDataSource(server, [grant.ids.definition]);
    expect(audOf(await ask(grant, `uma_protection ${grant.definitionName}:read`))).toEqual([first.resourceUri, second.resourceUri]);
  });

  it('stays the issuer for plain scopes, whatever data sources exist', async () => {
    const grant = await consentWorld(server);
    await enrolDataSource(server, [grant.ids.definition]);
    expect(audOf(await ask(grant, 'uma_protection'))).toBe(server.url);
  });
});

describe('the resource parameter (RFC 8707)', () => {
  it('narrows aud to the one data source asked for', async () => {
    const grant = await consentWorld(server);
    const first = await enrolDataSource(server, [grant.ids.definition]);
    await enrolDataSource(server, [grant.ids.definition]);
    const response = await ask(grant, `${grant.definitionName}:read`, [first.resourceUri]);
    expect(response.status).toBe(200);
    expect(audOf(response)).toBe(first.resourceUri);
  });

  it('may be repeated: aud is exactly the resources asked for', async () => {
    const grant = await consentWorld(server);
    const first = await enrolDataSource(server, [grant.ids.definition]);
    const second = await enrolDataSource(server, [grant.ids.definition]);
    expect(audOf(await ask(grant, `${grant.definitionName}:read`, [second.resourceUri, first.resourceUri]))).toEqual([second.resourceUri, first.resourceUri]);
  });

  it('is a string or an array of strings in a JSON body', async () => {
    const grant = await consentWorld(server);
    const first = await enrolDataSource(server, [grant.ids.definition]);
    const second = await enrolDataSource(server, [grant.ids.definition]);
    expect(audOf(await askJson(grant, { scope: `${grant.definitionName}:read`, resource: first.resourceUri }))).toBe(first.resourceUri);
    expect(audOf(await askJson(grant, { scope: `${grant.definitionName}:read`, resource: [first.resourceUri, second.resourceUri] }))).toEqual([
      first.resourceUri,
      second.resourceUri,
    ]);
    const wrongType = await askJson(grant, { scope: `${grant.definitionName}:read`, resource: [1] });
    expect(wrongType.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(wrongType).error).toBe('invalid_request');
  });

  it('answers invalid_target naming a resource that is no enrolled data source', async () => {
    const grant = await consentWorld(server);
    const response = await ask(grant, `${grant.definitionName}:read`, ['https://unknown.example/api']);
    expect(response.status).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toEqual({
      error: 'invalid_target',
      error_description: expect.stringContaining('"https://unknown.example/api" is no enrolled data source') as unknown,
    });
  });

  it('answers invalid_target naming the resource and the definition it does not serve', async () => {
    const grant = await consentWorld(server);
    const [other] = freshIds(1);
    await patchAdmin(server, [add('resource-definition', { id: other, attributes: { name: `weight-${other}` } })]);
    const serving = await enrolDataSource(server, [grant.ids.definition]);
    const elsewhere = await enrolDataSource(server, [other]);
    const response = await ask(grant, `${grant.definitionName}:read`, [serving.resourceUri, elsewhere.resourceUri]);
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_target');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain(elsewhere.resourceUri);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain(`does not serve resource definition "${grant.definitionName}"`);
  });

  it('answers invalid_target for an unknown resource with plain scopes only', async () => {
    const grant = await consentWorld(server);
    const response = await ask(grant, 'uma_protection', ['https://unknown.example/plain']);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_target');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain('https://unknown.example/plain');
  });
});

describe('introspection by a data source (docs/concepts/audience.md)', () => {
  async function introspect(client: Pick<ConsentGrant, 'clientId' | 'secret'>, token: string) {
    return request(server.url).post('/oauth2/introspect').set('Authorization', basic(client.clientId, client.secret)).type('form').send({ token });
  }

  async function resourceServerClient(): Promise<{ id: number; clientId: string; secret: string }> {
    const [id] = freshIds(1);
    const response = await patchAdmin(server, [
      add('uma-client', { id, attributes: { clientId: `rs-${id}`, clientName: 'RS', allowedScopes: 'uma_protection' } }),
    ]);
    return { id, clientId: `rs-${id}`, secret: bodyOf<CreatedClientResult[]>(response)[0].meta.clientSecret };
  }

  it('finds active a token whose aud names the data source, and inactive one meant for another', async () => {
    const grant = await consentWorld(server);
    const mine = await resourceServerClient();
    const theirs = await resourceServerClient();
    const source = await enrolDataSource(server, [grant.ids.definition], { umaClient: mine.id });
    const other = await enrolDataSource(server, [grant.ids.definition], { umaClient: theirs.id });
    const forMe = bodyOf<TokenBody>(await ask(grant, `${grant.definitionName}:read`, [source.resourceUri])).access_token;
    const forOther = bodyOf<TokenBody>(await ask(grant, `${grant.definitionName}:read`, [other.resourceUri])).access_token;
    const forBoth = bodyOf<TokenBody>(await ask(grant, `${grant.definitionName}:read`)).access_token;
    expect((await introspect(mine, forMe)).body).toMatchObject({ active: true, aud: source.resourceUri });
    expect((await introspect(mine, forOther)).body).toEqual({ active: false });
    expect(bodyOf<IntrospectionBody>(await introspect(mine, forBoth)).active).toBe(true);
  });

  it('finds inactive a token with the issuer as aud', async () => {
    const grant = await consentWorld(server);
    const mine = await resourceServerClient();
    await enrolDataSource(server, [grant.ids.definition], { umaClient: mine.id });
    const plain = bodyOf<TokenBody>(await ask(grant, 'uma_protection')).access_token;
    expect((await introspect(mine, plain)).body).toEqual({ active: false });
  });

  it('leaves a client that is no data source seeing only tokens of the default audience (docs/operations/security.md)', async () => {
    const grant = await consentWorld(server);
    const source = await enrolDataSource(server, [grant.ids.definition]);
    const token = bodyOf<TokenBody>(await ask(grant, `${grant.definitionName}:read`, [source.resourceUri])).access_token;
    const plain = bodyOf<TokenBody>(await ask(grant, 'uma_protection')).access_token;
    const plainIntrospector = await resourceServerClient();
    expect((await introspect(plainIntrospector, token)).body).toEqual({ active: false });
    expect(bodyOf<IntrospectionBody>(await introspect(plainIntrospector, plain)).active).toBe(true);
  });
});

describe('changes to data sources, on every instance', () => {
  it('stop counting within a second of the pair being removed, on two instances', async () => {
    const grant = await consentWorld(server);
    const source = await enrolDataSource(server, [grant.ids.definition]);
    const second = await startTestApp();
    try {
      for (const instance of [server, second]) {
        expect(audOf(await ask(grant, `${grant.definitionName}:read`, [], instance))).toBe(source.resourceUri);
        expect((await ask(grant, `${grant.definitionName}:read`, [source.resourceUri], instance)).status).toBe(200);
      }
      expect((await patchAdmin(server, [{ op: 'remove', path: `/data-source-resource-definitions/${source.pairs[0]}` }])).status).toBe(200);
      const removedAt = Date.now();
      for (const instance of [server, second]) {
        await eventually(async () => (audOf(await ask(grant, `${grant.definitionName}:read`, [], instance)) === instance.url ? true : undefined), 1_000, 20);
        await eventually(
          async () =>
            bodyOf<OAuthErrorBody>(await ask(grant, `${grant.definitionName}:read`, [source.resourceUri], instance)).error === 'invalid_target'
              ? true
              : undefined,
          1_000,
          20,
        );
      }
      expect(Date.now() - removedAt).toBeLessThan(1_000);
    } finally {
      await second.close();
    }
  });

  it('refuse a removed data source as a resource within a second, on two instances', async () => {
    const grant = await consentWorld(server);
    const source = await enrolDataSource(server, [grant.ids.definition]);
    const second = await startTestApp();
    try {
      for (const instance of [server, second]) expect((await ask(grant, `${grant.definitionName}:read`, [source.resourceUri], instance)).status).toBe(200);
      const removal = await patchAdmin(server, [
        { op: 'remove', path: `/data-source-resource-definitions/${source.pairs[0]}` },
        { op: 'remove', path: `/data-source/${source.id}` },
      ]);
      expect(removal.status).toBe(200);
      const removedAt = Date.now();
      for (const instance of [server, second]) {
        await eventually(
          async () => {
            const response = await ask(grant, `${grant.definitionName}:read`, [source.resourceUri], instance);
            return bodyOf<OAuthErrorBody>(response).error_description?.includes('is no enrolled data source') ? true : undefined;
          },
          1_000,
          20,
        );
      }
      expect(Date.now() - removedAt).toBeLessThan(1_000);
    } finally {
      await second.close();
    }
  });
});
