import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf } from '../support/bodies.js';

/** The parts of an OpenAPI document these tests read. */
type OpenApiDocument = { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

const ROOT = resolve(import.meta.dirname, '../..');
const EXPECTED_PATHS = [
  '/oauth2/token',
  '/oauth2/jwks',
  '/.well-known/oauth-authorization-server',
  '/health/ready',
  '/admin',
  '/admin/{type}/{id}',
  '/metrics',
];

describe('API documentation', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp();
  });

  afterAll(() => server.close());

  it('serves an OpenAPI 3 document of the public and admin endpoints at /docs-json on the admin port', async () => {
    const response = await request(server.adminUrl).get('/docs-json');
    expect(response.status).toBe(200);
    const document = bodyOf<OpenApiDocument>(response);
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(EXPECTED_PATHS));
    expect(Object.keys(document.paths['/oauth2/token'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429', '503']));
    expect((await request(server.adminUrl).get('/docs/')).status).toBe(200);
  });

  it('serves no documentation on the public port', async () => {
    for (const path of ['/docs', '/docs/', '/docs-json', '/docs-yaml']) {
      expect([path, (await request(server.url).get(path)).status]).toEqual([path, 404]);
    }
  });

  it('writes the document of every endpoint to a file with the openapi script, without a database, the optional ones included', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'openapi-'));
    try {
      const file = join(folder, 'openapi.json');
      const result = spawnSync(process.execPath, [join(ROOT, 'dist/src/docs/write-openapi.js'), file], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
      });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const document = JSON.parse(await readFile(file, 'utf8')) as OpenApiDocument;
      expect(Object.keys(document.paths)).toEqual(expect.arrayContaining([...EXPECTED_PATHS, '/oauth2/register', '/.well-known/udap']));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
