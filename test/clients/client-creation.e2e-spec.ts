import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { ClientsService } from '../../src/clients/clients.service.js';
import { ClientTakenError } from '../../src/clients/client-registration.js';
import { add, freshIds, patchAdmin, rowCounts } from '../support/admin.js';
import { bodyOf, type JsonApiErrors, type PatchResults } from '../support/bodies.js';
import { FACTORY_ACTOR } from '../support/factories.js';
import { runCli } from '../support/processes.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';

/**
 * Clients are created on one path (the clients module's service) whoever asks: the CLI, the admin
 * interface (and so the console) and the test factories store the same rows and the same audit event.
 */
let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

const uniqueId = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

type StoredClient = { client: Record<string, unknown>; metadata: Record<string, unknown>; redirectUris: string[]; events: Record<string, unknown>[] };

/** A client's rows and audit events, less what differs between any two clients (ids, times, the secret's salt). */
async function stored(clientId: string): Promise<StoredClient> {
  const query = <T>(sql: string, parameters: unknown[]) => server.dataSource.query<T[]>(sql, parameters);
  const [client] = await query<{ id: number; metadata_id: number } & Record<string, unknown>>('SELECT * FROM client WHERE client_id = $1', [clientId]);
  const [metadata] = await query<Record<string, unknown>>('SELECT * FROM client_metadata WHERE id = $1', [client.metadata_id]);
  const uris = await query<{ uri: string }>('SELECT uri FROM redirect_uri WHERE client_id = $1 ORDER BY id', [client.id]);
  const events = await query<{ after: Record<string, unknown> } & Record<string, unknown>>(
    "SELECT actor, operation, record_type, before, after FROM audit_event WHERE record_type = 'uma-client' AND record_id = $1 ORDER BY id",
    [client.id],
  );
  return {
    client: { ...client, id: undefined, metadata_id: undefined, client_id: undefined, date_created: undefined, last_updated: undefined },
    metadata: {
      ...metadata,
      id: undefined,
      date_created: undefined,
      last_updated: undefined,
      client_secret_hash: typeof metadata.client_secret_hash === 'string' ? metadata.client_secret_hash.split('$').slice(0, 4).join('$') : null,
    },
    redirectUris: uris.map((row) => row.uri),
    events: events.map((event) => ({ ...event, actor: String(event.actor).split(':')[0].split('@')[0], after: { ...event.after, clientId: undefined } })),
  };
}

/** A client's rows without where it came from (registered_via: `cli` or `admin`) and its events. */
function withoutOrigin(stored: StoredClient) {
  return { ...stored, client: { ...stored.client, registered_via: undefined }, events: [] };
}

async function createWithCli(clientId: string, options: string[]): Promise<void> {
  const created = await runCli(['client', 'create', '--client-id', clientId, '--name', 'Same client', ...options], { DATABASE_URL: testDatabaseUrl() });
  expect(created.stderr).toBe('');
  expect(created.code).toBe(0);
}

async function createWithAdmin(clientId: string, attributes: Record<string, unknown>): Promise<void> {
  const response = await patchAdmin(server, [add('uma-client', { attributes: { clientId, clientName: 'Same client', ...attributes } })]);
  expect(response.status).toBe(200);
}

describe('one way to create a client', () => {
  it('stores the same rows and the same audit event for a secret client created with the CLI and over the admin interface', async () => {
    const [fromCli, fromAdmin] = [uniqueId('cli-made'), uniqueId('admin-made')];
    await createWithCli(fromCli, [
      '--scopes',
      'read  write',
      '--auth-method',
      'client_secret_post',
      '--grant-types',
      'client_credentials refresh_token',
      '--redirect-uri',
      'https://app.example/one',
      '--redirect-uri',
      'https://app.example/two',
      '--secret',
      'an-operator-chosen-secret-1',
      '--dpop-bound',
      '--access-token-lifetime',
      '600',
    ]);
    await createWithAdmin(fromAdmin, {
      allowedScopes: 'read  write',
      clientAuthenticationType: 'client_secret_post',
      grantTypes: 'client_credentials refresh_token',
      redirectUris: ['https://app.example/one', 'https://app.example/two'],
      clientSecret: 'an-operator-chosen-secret-2',
      dpopBoundAccessTokens: true,
      accessTokenLifetime: 600,
    });
    const [cli, admin] = [await stored(fromCli), await stored(fromAdmin)];
    expect(cli.metadata).toMatchObject({
      allowed_scopes: 'read write',
      client_authentication_type: 'client_secret_post',
      client_secret_hash: 'scrypt$32768$8$1',
    });
    expect(cli.redirectUris).toEqual(['https://app.example/one', 'https://app.example/two']);
    expect(cli.events).toEqual([{ actor: 'cli', operation: 'add', record_type: 'uma-client', before: null, after: expect.any(Object) as unknown }]);
    expect(withoutOrigin(admin)).toEqual(withoutOrigin(cli));
    expect(admin.client.registered_via).toBe('admin');
    expect(cli.client.registered_via).toBe('cli');
    // The admin interface's event is its AdminRecordsService's (the record as it reads back): every attribute the CLI's names, the same.
    expect(admin.events[0]).toMatchObject({
      operation: 'add',
      record_type: 'uma-client',
      before: null,
      after: { ...(cli.events[0].after as object), registeredVia: 'admin' },
    });
    expect(admin.events[0].actor).toBe('admin-token');
  });

  it('stores the same rows and the same audit event for a key-holding client created with the CLI and over the admin interface', async () => {
    const [fromCli, fromAdmin] = [uniqueId('cli-keys'), uniqueId('admin-keys')];
    const jwksUri = 'https://keys.example.com/jwks.json';
    await createWithCli(fromCli, ['--scopes', 'read', '--auth-method', 'private_key_jwt', '--jwks-uri', jwksUri]);
    await createWithAdmin(fromAdmin, { allowedScopes: 'read', clientAuthenticationType: 'private_key_jwt', jwksUri });
    const [cli, admin] = [await stored(fromCli), await stored(fromAdmin)];
    expect(cli.metadata).toMatchObject({ jwks_uri: jwksUri, client_secret_hash: null });
    expect(admin.events[0].after).toMatchObject({ ...(cli.events[0].after as object), registeredVia: 'admin' });
    expect({ ...withoutOrigin(admin), events: [] }).toEqual({ ...withoutOrigin(cli), events: [] });
  });

  it('audits the clients the test factories create, like any other', async () => {
    const created = await server.app
      .get(ClientsService)
      .create({ clientId: uniqueId('factory'), clientName: 'F', allowedScopes: 'read' }, { actor: FACTORY_ACTOR });
    const events = await server.dataSource.query<{ actor: string; operation: string }[]>(
      "SELECT actor, operation FROM audit_event WHERE record_type = 'uma-client' AND record_id = $1",
      [created.id],
    );
    expect(events).toEqual([{ actor: FACTORY_ACTOR, operation: 'add' }]);
  });
});

describe('a taken client id or record id', () => {
  it('is a 409 pointing at clientId over the admin interface, and changes nothing', async () => {
    const clientId = uniqueId('taken');
    await createWithAdmin(clientId, { allowedScopes: 'read' });
    const before = await rowCounts(server);
    const response = await patchAdmin(server, [add('uma-client', { attributes: { clientId, clientName: 'Again', allowedScopes: 'read' } })]);
    expect(response.status).toBe(409);
    expect(bodyOf<JsonApiErrors[]>(response)[0].errors[0]).toEqual({
      status: '409',
      code: 'conflict',
      title: 'Conflict',
      detail: `another uma-client already has clientId "${clientId}"`,
      source: { pointer: '/0/value/attributes/clientId' },
    });
    expect(await rowCounts(server)).toEqual(before);
  });

  it('is a 409 pointing at the id over the admin interface when the record id is taken', async () => {
    const [id] = freshIds(1);
    const first = await patchAdmin(server, [add('uma-client', { id, attributes: { clientId: uniqueId('first'), clientName: 'F', allowedScopes: 'read' } })]);
    expect(bodyOf<PatchResults>(first)[0].data?.id).toBe(String(id));
    const before = await rowCounts(server);
    const response = await patchAdmin(server, [
      add('uma-client', { id, attributes: { clientId: uniqueId('second'), clientName: 'S', allowedScopes: 'read' } }),
    ]);
    expect(response.status).toBe(409);
    expect(bodyOf<JsonApiErrors[]>(response)[0].errors[0]).toMatchObject({ detail: `uma-client ${id} already exists`, source: { pointer: '/0/value/id' } });
    expect(await rowCounts(server)).toEqual(before);
  });

  it('never stops the CLI: a record id chosen over the admin interface is skipped, as the admin interface skips it', async () => {
    const [{ next }] = await server.dataSource.query<{ next: string }[]>("SELECT nextval(pg_get_serial_sequence('client', 'id')) AS next");
    const chosen = Number(next) + 1;
    await patchAdmin(server, [add('uma-client', { id: chosen, attributes: { clientId: uniqueId('chosen'), clientName: 'C', allowedScopes: 'read' } })]).expect(
      200,
    );
    const clientId = uniqueId('after-chosen');
    await createWithCli(clientId, ['--scopes', 'read']);
    const [{ id }] = await server.dataSource.query<{ id: number }[]>('SELECT id FROM client WHERE client_id = $1', [clientId]);
    expect(id).not.toBe(chosen);
  });

  it('is refused by the CLI in one line, and changes nothing', async () => {
    const clientId = uniqueId('taken-cli');
    await createWithAdmin(clientId, { allowedScopes: 'read' });
    const before = await rowCounts(server);
    const again = await runCli(['client', 'create', '--client-id', clientId, '--name', 'Again', '--scopes', 'read'], { DATABASE_URL: testDatabaseUrl() });
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`error: a client with id "${clientId}" already exists\n`);
    expect(await rowCounts(server)).toEqual(before);
  });

  it('leaves no row behind in the caller’s transaction, which can go on', async () => {
    const clientId = uniqueId('in-transaction');
    const clients = server.app.get(ClientsService);
    await clients.create({ clientId, clientName: 'First', allowedScopes: 'read' }, { actor: FACTORY_ACTOR });
    const countIn = async (manager: EntityManager) =>
      (await manager.query<{ count: number }[]>('SELECT (SELECT count(*) FROM client_metadata)::int + (SELECT count(*) FROM audit_event)::int AS count'))[0]
        .count;
    await server.dataSource.transaction(async (manager) => {
      const before = await countIn(manager);
      const refused = await clients
        .create({ clientId, clientName: 'Again', allowedScopes: 'read' }, { actor: FACTORY_ACTOR, manager })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ClientTakenError);
      expect((refused as ClientTakenError).field).toBe('clientId');
      expect(await countIn(manager)).toBe(before);
    });
  });

  it('lets exactly one of two simultaneous creations of one clientId through', async () => {
    const clientId = uniqueId('raced');
    const clients = server.app.get(ClientsService);
    const outcomes = await Promise.allSettled(
      ['A', 'B'].map((name) => clients.create({ clientId, clientName: name, allowedScopes: 'read' }, { actor: FACTORY_ACTOR })),
    );
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refusal = outcomes.find((outcome) => outcome.status === 'rejected')!.reason as ClientTakenError;
    expect([refusal instanceof ClientTakenError, refusal.field]).toEqual([true, 'clientId']);
  });
});

describe('a registration the rules refuse', () => {
  const jwksRaw = JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' }] });
  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown authentication method', { clientAuthenticationType: 'none' }, 'clientAuthenticationType'],
    ['grant types without client_credentials', { grantTypes: 'refresh_token' }, 'grantTypes'],
    ['a private_key_jwt client without keys', { clientAuthenticationType: 'private_key_jwt' }, 'jwksRaw'],
    ['a private_key_jwt client with a secret', { clientAuthenticationType: 'private_key_jwt', jwksRaw, clientSecret: 'a'.repeat(32) }, 'clientSecret'],
    ['a secret too short', { clientSecret: 'short' }, 'clientSecret'],
    ['a lifetime over a day', { accessTokenLifetime: 86_401 }, 'accessTokenLifetime'],
  ])('is a 422 over the admin interface naming the attribute, for %s, and changes nothing', async (_, attributes, attribute) => {
    const before = await rowCounts(server);
    const response = await patchAdmin(server, [
      add('uma-client', { attributes: { clientId: uniqueId('refused'), clientName: 'R', allowedScopes: 'read', ...attributes } }),
    ]);
    expect(response.status).toBe(422);
    expect(bodyOf<JsonApiErrors[]>(response)[0].errors[0]).toMatchObject({
      status: '422',
      code: 'rule_broken',
      source: { pointer: `/0/value/attributes/${attribute}` },
    });
    expect(await rowCounts(server)).toEqual(before);
  });

  it('is refused by the CLI in one line naming the rule, and changes nothing', async () => {
    const before = await rowCounts(server);
    const refused = await runCli(
      ['client', 'create', '--client-id', uniqueId('refused'), '--name', 'R', '--scopes', 'read', '--grant-types', 'refresh_token'],
      {
        DATABASE_URL: testDatabaseUrl(),
      },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('error: grant types must include client_credentials\n');
    expect(await rowCounts(server)).toEqual(before);
  });
});

describe('the admin interface’s atomic requests', () => {
  it('store neither the client nor its audit event when a later operation of the request fails', async () => {
    const clientId = uniqueId('rolled-back');
    const before = await rowCounts(server);
    const response = await patchAdmin(server, [
      add('uma-client', { attributes: { clientId, clientName: 'Rolled back', allowedScopes: 'read' } }),
      add('purpose', { attributes: { name: 7 } }),
    ]);
    expect(response.status).toBe(400);
    expect(bodyOf<JsonApiErrors[]>(response)[0].errors[0].code).toBe('not_applied');
    expect(await rowCounts(server)).toEqual(before);
  });

  it('store the client and its audit event with the records that refer to it, in one request', async () => {
    const clientId = uniqueId('with-ticket');
    const response = await patchAdmin(server, [
      add('uma-client', { lid: 'client', attributes: { clientId, clientName: 'With ticket', allowedScopes: 'read' } }),
      add('purpose', { lid: 'purpose', attributes: { name: 'Why' } }),
      add('capability-ticket', {
        attributes: { ticketId: uniqueId('T'), ticketName: 'Ticket' },
        relationships: { purpose: { data: { type: 'purpose', lid: 'purpose' } }, umaClient: { data: { type: 'uma-client', lid: 'client' } } },
      }),
    ]);
    expect(response.status).toBe(200);
    const clientRecordId = bodyOf<PatchResults>(response)[0].data!.id;
    const events = await server.dataSource.query<{ operation: string }[]>(
      "SELECT operation FROM audit_event WHERE record_type = 'uma-client' AND record_id = $1",
      [Number(clientRecordId)],
    );
    expect(events).toEqual([{ operation: 'add' }]);
  });
});
