import request from 'supertest';
import { ASSERTION_TYPE, assertion, clientKey, createKeyClient, dpopProof } from '../support/keys.js';
import { startBehindProxy } from '../support/tcp-proxy.js';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';

describe('private_key_jwt and DPoP without the database', () => {
  let database: Awaited<ReturnType<typeof startBehindProxy>>;

  beforeAll(async () => {
    database = await startBehindProxy();
  });

  afterAll(() => database.close());

  it('answers 503 temporarily_unavailable (never 500) while the replay store is unreachable, and recovers', async () => {
    const server = database.server;
    const key = await clientKey('ES256');
    const clientId = await createKeyClient(server.app, key);
    const ask = async () =>
      request(server.url)
        .post('/oauth2/token')
        .set('DPoP', await dpopProof(key, `${server.url}/oauth2/token`))
        .type('form')
        .send({
          grant_type: 'client_credentials',
          scope: 'read',
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await assertion(key, clientId, server.url),
        });
    expect((await ask()).status).toBe(200);

    await database.proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await ask();
    expect(response.status).toBe(503);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('temporarily_unavailable');

    await database.restore();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await ask()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
  });
});
