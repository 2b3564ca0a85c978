import { getAdmin } from '../support/admin.js';
import { parsedAs, objectContaining, type CliClientJson } from '../support/bodies.js';
import { runCli } from '../support/processes.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';

let server: TestApp;
const environment = () => ({ DATABASE_URL: testDatabaseUrl() });
const uniqueId = (prefix: string) => `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

type Event = { actor: string; operation: string; record_type: string; record_id: number; before: unknown; after: Record<string, unknown> | null };

async function eventsOf(recordType: string, recordId: number): Promise<Event[]> {
  return server.dataSource.query<Event[]>(
    'SELECT actor, operation, record_type, record_id, before, after FROM audit_event WHERE record_type = $1 AND record_id = $2 ORDER BY id',
    [recordType, recordId],
  );
}

async function clientRowId(clientId: string): Promise<number> {
  const [{ id }] = await server.dataSource.query<{ id: number }[]>('SELECT id FROM client WHERE client_id = $1', [clientId]);
  return id;
}

describe('changes made with the CLI are in the audit trail', () => {
  it('records client create as an add by the CLI, without the secret', async () => {
    const clientId = uniqueId('audited');
    const created = await runCli(['client', 'create', '--client-id', clientId, '--name', 'Audited', '--scopes', 'read', '--json'], environment());
    expect(created.code).toBe(0);
    const secret = parsedAs<CliClientJson>(created.stdout).client_secret;
    const events = await eventsOf('uma-client', await clientRowId(clientId));
    expect(events).toEqual([
      objectContaining({ operation: 'add', before: null, after: objectContaining({ clientId, clientName: 'Audited', allowedScopes: 'read' }) }),
    ]);
    expect(events[0].actor).toMatch(/^cli:/);
    expect(JSON.stringify(events)).not.toContain(secret);
    // The admin interface shows it like any other change.
    const trail = await getAdmin(server, '/admin/audit-event?page[size]=100&page[number]=1');
    expect(trail.status).toBe(200);
  });

  it('records client rotate-secret, never the new secret', async () => {
    const clientId = uniqueId('rotated');
    expect((await runCli(['client', 'create', '--client-id', clientId, '--name', 'R', '--scopes', 'read'], environment())).code).toBe(0);
    const rotated = await runCli(['client', 'rotate-secret', clientId, '--json'], environment());
    expect(rotated.code).toBe(0);
    const events = await eventsOf('uma-client', await clientRowId(clientId));
    expect(events.map((event) => event.operation)).toEqual(['add', 'rotate-secret']);
    expect(events[1].actor).toMatch(/^cli:/);
    expect(JSON.stringify(events)).not.toContain(parsedAs<CliClientJson>(rotated.stdout).client_secret);
  });

  it('records nothing for a rotate-secret of an unknown client', async () => {
    const [{ count: before }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM audit_event');
    const rotated = await runCli(['client', 'rotate-secret', uniqueId('missing')], environment());
    expect(rotated.code).toBe(1);
    const [{ count: after }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM audit_event');
    expect(after).toBe(before);
  });

  it('records keys rotate with the new key id', async () => {
    const rotated = await runCli(['keys', 'rotate', '--json'], environment());
    expect(rotated.code).toBe(0);
    const { kid } = parsedAs<{ kid: string }>(rotated.stdout);
    const [{ id }] = await server.dataSource.query<{ id: number }[]>('SELECT id FROM signing_key WHERE kid = $1', [kid]);
    const events = await eventsOf('signing-key', id);
    expect(events).toEqual([objectContaining({ operation: 'rotate', after: objectContaining({ kid }) })]);
    expect(events[0].actor).toMatch(/^cli:/);
  });
});
