import request from 'supertest';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { clientKey, dpopProof, type ClientKey } from '../support/keys.js';
import { finished, startServerProcess } from '../support/processes.js';
import { freePorts, freshDatabase, startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';
import { NONCE_STEP_SECONDS } from '../../src/auth/dpop-nonces.js';

// A database of its own for each test: sealing keys must not touch the keys other tests share.
const keysDatabase = () => freshDatabase('keys');

describe('KEY_ENCRYPTION_SECRET', () => {
  it('stores the private signing keys encrypted, and the server still signs with them', async () => {
    const databaseUrl = await keysDatabase();
    const secret = 'encrypt-the-keys-please-0123456789';
    const server = await startTestApp({ DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET: secret });
    try {
      const rows: { private_key: string }[] = await server.dataSource.query('SELECT private_key FROM signing_key');
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.private_key).toMatch(/^enc:v1:/);
        expect(row.private_key).not.toContain('PRIVATE KEY');
      }
      const client = await createClient(server.app);
      const response = await request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('stops the start with one line when the secret does not decrypt the keys', async () => {
    const databaseUrl = await keysDatabase();
    const first = await startTestApp({ DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET: 'the-first-secret-0123456789' });
    await first.close();
    const [port, adminPort] = await freePorts(2);
    const result = await finished(
      startServerProcess({
        DATABASE_URL: databaseUrl,
        ADMIN_TOKEN: 'admin-token-0123456789',
        PORT: String(port),
        ADMIN_PORT: String(adminPort),
        KEY_ENCRYPTION_SECRET: 'a-different-secret-0123456789',
      }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('KEY_ENCRYPTION_SECRET does not decrypt the stored signing keys')]);
  });
});

describe('KEY_ENCRYPTION_SECRET and the DPoP nonce secret', () => {
  const secret = 'encrypt-the-nonce-secret-0123456789';
  let proofKey: ClientKey;

  beforeAll(async () => {
    proofKey = await clientKey('ES256');
  });

  const storedNonceSecret = async (server: TestApp): Promise<string> => {
    const rows: { value: string }[] = await server.dataSource.query(`SELECT value FROM server_secret WHERE name = 'dpop-nonce'`);
    expect(rows).toHaveLength(1);
    return rows[0].value;
  };
  const tokenRequest = async (server: TestApp, client: TestClient, nonce?: string) =>
    request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .set('DPoP', await dpopProof(proofKey, `${server.url}/oauth2/token`, nonce === undefined ? {} : { nonce }))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });

  it('stores a new nonce secret encrypted, and its nonces are accepted', async () => {
    const server = await startTestApp({ DATABASE_URL: await keysDatabase(), KEY_ENCRYPTION_SECRET: secret, DPOP_NONCE: 'true' });
    try {
      const client = await createClient(server.app);
      const refused = await tokenRequest(server, client);
      expect(refused.status).toBe(400);
      expect(bodyOf<OAuthErrorBody>(refused).error).toBe('use_dpop_nonce');
      const stored = await storedNonceSecret(server);
      expect(stored).toMatch(/^enc:v1:/);
      expect(stored).not.toContain(refused.headers['dpop-nonce']);
      expect((await tokenRequest(server, client, refused.headers['dpop-nonce'])).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('keeps a nonce secret stored in clear working, and encrypts it once the secret is set', async () => {
    // Nonces are made per 30 s step: start the comparison early in a step, so both nonces share it.
    const intoStep = (Date.now() / 1000) % NONCE_STEP_SECONDS;
    if (intoStep > NONCE_STEP_SECONDS - 15) await new Promise((resolve) => setTimeout(resolve, (NONCE_STEP_SECONDS - intoStep) * 1000 + 100));
    const databaseUrl = await keysDatabase();
    const before = await startTestApp({ DATABASE_URL: databaseUrl, DPOP_NONCE: 'true' });
    let nonce: string;
    let plain: string;
    try {
      const client = await createClient(before.app);
      nonce = (await tokenRequest(before, client)).headers['dpop-nonce'];
      plain = await storedNonceSecret(before);
      expect(plain).not.toMatch(/^enc:v1:/);
      expect((await tokenRequest(before, client, nonce)).status).toBe(200);
    } finally {
      await before.close();
    }

    const after = await startTestApp({ DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET: secret, DPOP_NONCE: 'true' });
    try {
      const client = await createClient(after.app);
      // A nonce made under the clear secret is still current: the secret itself did not change.
      expect((await tokenRequest(after, client, nonce)).status).toBe(200);
      const sealed = await storedNonceSecret(after);
      expect(sealed).toMatch(/^enc:v1:/);
      expect(sealed).not.toContain(plain);
      const fresh = await tokenRequest(after, client);
      expect(fresh.headers['dpop-nonce']).toBe(nonce);
    } finally {
      await after.close();
    }
  });
});
