import { Writable } from 'node:stream';
import request from 'supertest';
import { ASSERTION_TYPE, assertion, clientKey, createKeyClient, dpopProof } from '../support/keys.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type TokenBody } from '../support/bodies.js';

describe('no client assertion, DPoP proof or token in any log line (as docs/operations/security.md#secrets-never-logged says)', () => {
  it('holds over accepted and refused assertions, proofs and nonces', async () => {
    const lines: string[] = [];
    const logs = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const server: TestApp = await startTestApp({ LOG_LEVEL: 'trace', DPOP_NONCE: 'true', JWKS_URI_ALLOW_HTTP: 'true' }, { logs });
    const secrets: string[] = [];
    try {
      const key = await clientKey('ES256');
      const clientId = await createKeyClient(server.app, key);
      const unreachable = await createKeyClient(server.app, key, { jwksRaw: null, jwksUri: 'http://127.0.0.1:9/jwks' });
      const endpoint = `${server.url}/oauth2/token`;
      const send = (jwt: string, proof?: string) => {
        secrets.push(jwt, ...(proof ? [proof] : []));
        const pending = request(server.url).post('/oauth2/token').type('form');
        if (proof) pending.set('DPoP', proof);
        return pending.send({ grant_type: 'client_credentials', scope: 'read', client_assertion_type: ASSERTION_TYPE, client_assertion: jwt });
      };
      const refused = await send(await assertion(key, clientId, server.url), await dpopProof(key, endpoint));
      const nonce = refused.headers['dpop-nonce'];
      const issued = await send(await assertion(key, clientId, server.url), await dpopProof(key, endpoint, { nonce }));
      expect(issued.status).toBe(200);
      secrets.push(bodyOf<TokenBody>(issued).access_token);
      await send(await assertion(key, clientId, server.url, { aud: 'https://elsewhere.example' }));
      await send(await assertion(key, unreachable, server.url));
      await send('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.');
    } finally {
      await server.close();
    }
    const everything = lines.join('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });
});
