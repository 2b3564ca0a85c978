import { consentWorld, enrolDataSource } from '../support/consent.js';
import { runCli } from '../support/processes.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';

// docs/reference/cli.md#delegations: data-source delegate FROM TO, audited with the CLI actor, refused as the admin type is.
let server: TestApp;
const environment = () => ({ DATABASE_URL: testDatabaseUrl() });

beforeAll(async () => {
  server = await startTestApp();
}, 120_000);

afterAll(() => server?.close());

async function twoSources() {
  const grant = await consentWorld(server);
  return { grant, a: await enrolDataSource(server, [grant.ids.definition]), b: await enrolDataSource(server, [grant.ids.definition]) };
}

async function delegations(): Promise<number> {
  const [{ count }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM data_source_delegation');
  return count;
}

describe('data-source delegate', () => {
  it('delegates by resourceUri and id, with scopes, audited with the CLI actor', async () => {
    const { grant, a, b } = await twoSources();
    const created = await runCli(['data-source', 'delegate', a.resourceUri, String(b.id), '--scopes', `${grant.definitionName}:read`, '--json'], environment());
    expect(created.code).toBe(0);
    const id = Number((JSON.parse(created.stdout) as { id: string }).id);
    const [row] = await server.dataSource.query<Record<string, unknown>[]>('SELECT from_id, to_id, scopes FROM data_source_delegation WHERE id = $1', [id]);
    expect(row).toEqual({ from_id: a.id, to_id: b.id, scopes: [`${grant.definitionName}:read`] });
    const [event] = await server.dataSource.query<{ actor: string; operation: string }[]>(
      "SELECT actor, operation FROM audit_event WHERE record_type = 'data-source-delegation' AND record_id = $1",
      [id],
    );
    expect(event.operation).toBe('add');
    expect(event.actor).toMatch(/^cli/);
  });

  it('refuses a scope the target does not serve, writing nothing', async () => {
    const { a, b } = await twoSources();
    const before = await delegations();
    const refused = await runCli(['data-source', 'delegate', String(a.id), String(b.id), '--scopes', 'other-definition:read'], environment());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('scopes');
    expect(await delegations()).toBe(before);
  });

  it('refuses an unknown data source and a pair delegated twice', async () => {
    const { a, b } = await twoSources();
    const unknown = await runCli(['data-source', 'delegate', 'https://nowhere.example/api', String(b.id)], environment());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no data source');
    expect((await runCli(['data-source', 'delegate', String(a.id), String(b.id)], environment())).code).toBe(0);
    const twice = await runCli(['data-source', 'delegate', String(a.id), String(b.id)], environment());
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already delegated');
  });
});
