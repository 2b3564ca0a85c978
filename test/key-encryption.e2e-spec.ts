import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { basic, createClient } from './support/factories.js';
import { finished, startServerProcess } from './support/processes.js';
import { freePorts, startTestApp, testDatabaseUrl } from './support/test-app.js';

/** A database of its own: sealing keys must not touch the keys other tests share. */
async function freshDatabase(): Promise<string> {
  const name = `keys_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

describe('KEY_ENCRYPTION_SECRET', () => {
  it('stores the private signing keys encrypted, and the server still signs with them', async () => {
    const databaseUrl = await freshDatabase();
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
      const response = await request(server.url).post('/oauth2/token').set('Authorization', basic(client.clientId, client.clientSecret)).type('form').send({ grant_type: 'client_credentials', scope: 'read' });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('stops the start with one line when the secret does not decrypt the keys', async () => {
    const databaseUrl = await freshDatabase();
    const first = await startTestApp({ DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET: 'the-first-secret-0123456789' });
    await first.close();
    const [port, adminPort] = await freePorts(2);
    const result = await finished(startServerProcess({
      DATABASE_URL: databaseUrl, ADMIN_TOKEN: 'admin-token-0123456789', PORT: String(port), ADMIN_PORT: String(adminPort),
      KEY_ENCRYPTION_SECRET: 'a-different-secret-0123456789',
    }));
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('KEY_ENCRYPTION_SECRET does not decrypt the stored signing keys')]);
  });
});
