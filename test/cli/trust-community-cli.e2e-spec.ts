import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../support/factories.js';
import { runCli } from '../support/processes.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { selfSignedCertificate, udapServerCertificate } from '../support/udap-anchors.js';

// docs/reference/cli.md#trust-communities: create, list and remove, each change audited with the CLI actor.
let server: TestApp;
let folder: string;
let caFile: string;
let leafFile: string;
const environment = () => ({ DATABASE_URL: testDatabaseUrl() });
const uniqueUri = () => `https://community.example/cli/${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'trust-community-cli-'));
  caFile = join(folder, 'ca.pem');
  leafFile = join(folder, 'leaf.pem');
  writeFileSync(caFile, await selfSignedCertificate('CN=CLI Community Root', true));
  writeFileSync(leafFile, await selfSignedCertificate('CN=CLI Not a CA', false));
  server = await startTestApp();
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

type Event = { actor: string; operation: string; before: unknown; after: Record<string, unknown> | null };

async function eventsOf(id: number): Promise<Event[]> {
  return server.dataSource.query<Event[]>(
    "SELECT actor, operation, before, after FROM audit_event WHERE record_type = 'trust-community' AND record_id = $1 ORDER BY id",
    [id],
  );
}

describe('trust-community commands', () => {
  it('creates a community with its options, lists it and removes it, each change audited by the CLI', async () => {
    const communityUri = uniqueUri();
    const created = await runCli(
      [
        'trust-community',
        'create',
        '--name',
        'CLI Community',
        '--community-uri',
        communityUri,
        '--anchor',
        caFile,
        '--scopes',
        'system/Patient.rs',
        '--purposes',
        'urn:oid:2.16.840.1.113883.5.8#TREAT',
        '--revocation',
        'off',
        '--access-token-lifetime',
        '600',
        '--json',
      ],
      environment(),
    );
    expect(created.code).toBe(0);
    const id = Number((JSON.parse(created.stdout) as { id: string }).id);
    const [row] = await server.dataSource.query<Record<string, unknown>[]>(
      'SELECT name, scope_ceiling, purposes_of_use, revocation_check, access_token_lifetime, enabled FROM trust_community WHERE id = $1',
      [id],
    );
    expect(row).toEqual({
      name: 'CLI Community',
      scope_ceiling: 'system/Patient.rs',
      purposes_of_use: ['urn:oid:2.16.840.1.113883.5.8#TREAT'],
      revocation_check: 'off',
      access_token_lifetime: 600,
      enabled: true,
    });

    const listed = await runCli(['trust-community', 'list'], environment());
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${id}\t${communityUri}\tCLI Community\tenabled\t1 anchor(s)\t0 client(s)`);

    const removed = await runCli(['trust-community', 'remove', String(id)], environment());
    expect(removed.code).toBe(0);
    expect(await server.dataSource.query('SELECT id FROM trust_community WHERE id = $1', [id])).toEqual([]);
    const events = await eventsOf(id);
    expect(events.map((event) => event.operation)).toEqual(['add', 'remove']);
    expect(events.every((event) => event.actor.startsWith('cli:'))).toBe(true);
    expect(events[0].after).toMatchObject({ communityUri, revocationCheck: 'off' });
  });

  it('refuses to remove a community that still has a client, in one line, and keeps it', async () => {
    const created = await runCli(
      ['trust-community', 'create', '--name', 'Kept', '--community-uri', uniqueUri(), '--anchor', caFile, '--scopes', 'system/Patient.rs', '--json'],
      environment(),
    );
    const id = Number((JSON.parse(created.stdout) as { id: string }).id);
    // A member, as UDAP registration stores one (docs/reference/trust-communities.md).
    const client = await createClient(server.app);
    await server.dataSource.query(`UPDATE client SET registered_via = 'udap', trust_community_id = $1, udap_issuer = $2 WHERE client_id = $3`, [
      id,
      `https://member.example/${id}`,
      client.clientId,
    ]);
    try {
      const refused = await runCli(['trust-community', 'remove', String(id)], environment());
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe(`error: trust-community ${id} still has a client: remove them first`);
      expect(await server.dataSource.query('SELECT id FROM trust_community WHERE id = $1', [id])).toHaveLength(1);
    } finally {
      await server.dataSource.query('UPDATE client SET trust_community_id = NULL WHERE client_id = $1', [client.clientId]);
    }
  });

  it('refuses an anchor that is not a CA in one line naming anchors, and stores nothing', async () => {
    const communityUri = uniqueUri();
    const refused = await runCli(
      ['trust-community', 'create', '--name', 'Refused', '--community-uri', communityUri, '--anchor', leafFile, '--scopes', 'system/Patient.rs'],
      environment(),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('error: anchors[0]: an anchor must be a CA certificate (basicConstraints CA:TRUE)');
    expect(await server.dataSource.query('SELECT id FROM trust_community WHERE community_uri = $1', [communityUri])).toEqual([]);
  });

  it('refuses a create without --anchor, and a remove of an unknown id', async () => {
    const missing = await runCli(['trust-community', 'create', '--name', 'N', '--community-uri', uniqueUri(), '--scopes', 'a'], environment());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--anchor is required');
    const unknown = await runCli(['trust-community', 'remove', '2147483000'], environment());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no trust community with id 2147483000');
  });

  describe('--server-certificate and --server-key', () => {
    const ISSUER = 'https://udap-cli.example.org';
    let chainFile: string;
    let keyFile: string;
    let otherKeyFile: string;
    let chain: string;

    beforeAll(async () => {
      const [own, other] = await Promise.all([udapServerCertificate([ISSUER]), udapServerCertificate([ISSUER])]);
      chain = own.chain;
      [chainFile, keyFile, otherKeyFile] = ['server.pem', 'server.key', 'other.key'].map((name) => join(folder, name));
      writeFileSync(chainFile, own.chain);
      writeFileSync(keyFile, own.key);
      writeFileSync(otherKeyFile, other.key);
    }, 60_000);

    const create = (communityUri: string, key: string) =>
      runCli(
        [
          'trust-community',
          'create',
          '--name',
          'With certificate',
          '--community-uri',
          communityUri,
          '--anchor',
          caFile,
          '--scopes',
          'system/Patient.rs',
          '--server-certificate',
          chainFile,
          '--server-key',
          key,
        ],
        { ...environment(), ISSUER },
      );

    it("stores the community's own server certificate and its key, and audits no key", async () => {
      const communityUri = uniqueUri();
      const created = await create(communityUri, keyFile);
      expect(created.code).toBe(0);
      const [row] = await server.dataSource.query<{ id: number; server_certificate: string; server_key: string }[]>(
        'SELECT id, server_certificate, server_key FROM trust_community WHERE community_uri = $1',
        [communityUri],
      );
      expect(row.server_certificate).toBe(chain);
      expect(row.server_key).toContain('PRIVATE KEY');
      expect(JSON.stringify(await eventsOf(row.id))).not.toContain('PRIVATE KEY');
    });

    it('refuses the key of another certificate in one line naming serverKey, and stores nothing', async () => {
      const communityUri = uniqueUri();
      const refused = await create(communityUri, otherKeyFile);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe("error: serverKey is not the private key of the certificate's leaf");
      expect(await server.dataSource.query('SELECT id FROM trust_community WHERE community_uri = $1', [communityUri])).toEqual([]);
    });
  });
});
