import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('HTTP hardening', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp({ CORS_ALLOWED_ORIGINS: 'https://app.example' });
  });

  afterAll(() => server.close());

  it('sends X-Content-Type-Options: nosniff and no X-Powered-By on both listeners', async () => {
    for (const response of [await request(server.url).get('/oauth2/jwks'), await request(server.adminUrl).get('/admin/purpose')]) {
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('answers CORS only for a configured origin, and never on the admin interface', async () => {
    expect((await request(server.url).get('/oauth2/jwks').set('Origin', 'https://app.example')).headers['access-control-allow-origin']).toBe(
      'https://app.example',
    );
    expect((await request(server.url).get('/oauth2/jwks').set('Origin', 'https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
    const admin = await request(server.adminUrl).get('/admin/purpose').set('Origin', 'https://app.example').set('Authorization', server.adminToken);
    expect(admin.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('has CORS off when no origin is configured', async () => {
    const plain = await startTestApp();
    try {
      const response = await request(plain.url).options('/oauth2/token').set('Origin', 'https://app.example').set('Access-Control-Request-Method', 'POST');
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it('bounds how long a client may take to send headers and a request', () => {
    const http = server.app.getHttpServer();
    expect(http.headersTimeout).toBe(10_000);
    expect(http.requestTimeout).toBe(30_000);
    expect(http.keepAliveTimeout).toBe(5_000);
  });
});
