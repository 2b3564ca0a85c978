import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { finished } from './support/processes.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('examples/blood-glucose.sh', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp();
  });

  afterAll(() => server.close());

  it('runs the seed scenario end to end with curl and prints a token with its permissions', async () => {
    const script = resolve(import.meta.dirname, '../examples/blood-glucose.sh');
    const run = (baseId: string) =>
      finished(spawn('bash', [script], {
        env: { PATH: process.env.PATH, AS_URL: server.url, ADMIN_URL: `${server.adminUrl}/admin`, ADMIN_TOKEN: server.adminToken, BASE_ID: baseId },
      }));
    const first = await run(String(900_000_000 + Math.floor(Math.random() * 1_000_000) * 10));
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('"token_type":"Bearer"');
    expect(first.stdout).toContain('"resource_type": "blood-glucose-level"');
    expect(first.stdout).toContain('"typ": "at+jwt"');
    // The data source: explain grants for it, the token names it, and it finds the token active.
    expect(first.stdout).toContain('{"granted":true,"lifetime":1800,"aud":"https://glucose-api.example/fhir"');
    expect(first.stdout).toContain('"aud": "https://glucose-api.example/fhir"');
    expect(first.stdout).toContain('{"active":true,"aud":"https://glucose-api.example/fhir"');
    // A second run reuses the resource definition and the data source it finds.
    const second = await run(String(800_000_000 + Math.floor(Math.random() * 1_000_000) * 10));
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('{"active":true,"aud":"https://glucose-api.example/fhir"');
  });
});
