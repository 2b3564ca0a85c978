import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { finished } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('examples/blood-glucose.sh', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp();
  });

  afterAll(() => server.close());

  it('runs the seed scenario end to end with curl and prints a token with its permissions', async () => {
    const script = resolve(import.meta.dirname, '../../examples/blood-glucose.sh');
    const run = (baseId: string) =>
      finished(
        spawn('bash', [script], {
          env: { PATH: process.env.PATH, AS_URL: server.url, ADMIN_URL: `${server.adminUrl}/admin`, ADMIN_TOKEN: server.adminToken, BASE_ID: baseId },
        }),
      );
    const firstId = String(900_000_000 + Math.floor(Math.random() * 1_000_000) * 10);
    const first = await run(firstId);
    const firstUri = `https://glucose-api-${firstId}.example/fhir`;
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('"token_type":"Bearer"');
    expect(first.stdout).toContain('"resource_type": "blood-glucose-level"');
    expect(first.stdout).toContain('"typ": "at+jwt"');
    // The data source: explain grants for it, the token names it, and it finds the token active.
    expect(first.stdout).toContain(`{"granted":true,"lifetime":1800,"aud":"${firstUri}"`);
    expect(first.stdout).toContain(`"aud": "${firstUri}"`);
    expect(first.stdout).toContain(`{"active":true,"aud":"${firstUri}"`);
    // A second run reuses the resource definition, and enrols a data source of its own.
    const secondId = String(800_000_000 + Math.floor(Math.random() * 1_000_000) * 10);
    const second = await run(secondId);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`{"active":true,"aud":"https://glucose-api-${secondId}.example/fhir"`);
  });

  it('leaves the data source of an earlier run as it was (its introspection client unchanged)', async () => {
    const script = resolve(import.meta.dirname, '../../examples/blood-glucose.sh');
    const run = (baseId: number) =>
      finished(
        spawn('bash', [script], {
          env: { PATH: process.env.PATH, AS_URL: server.url, ADMIN_URL: `${server.adminUrl}/admin`, ADMIN_TOKEN: server.adminToken, BASE_ID: String(baseId) },
        }),
      );
    const dataSource = async (id: number) => {
      const response = await fetch(`${server.adminUrl}/admin/data-source/${id}`, { headers: { Authorization: server.adminToken } });
      const { data } = (await response.json()) as { data: { attributes: unknown; relationships: unknown } };
      return { attributes: data.attributes, relationships: data.relationships };
    };
    const baseId = 700_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
    expect((await run(baseId)).code).toBe(0);
    // The script's data source is id BASE_ID + 10.
    const before = await dataSource(baseId + 10);
    expect((await run(baseId + 50_000_000)).code).toBe(0);
    expect(await dataSource(baseId + 10)).toEqual(before);
  });
});
