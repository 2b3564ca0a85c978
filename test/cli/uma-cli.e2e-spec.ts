import { runCli } from '../support/processes.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { UMA_GRANT, redeem } from '../support/uma.js';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

async function createWithCli(grantTypes?: string): Promise<{ clientId: string; secret: string; stored: string }> {
  const clientId = `uma-cli-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const result = await runCli(
    [
      'client',
      'create',
      '--client-id',
      clientId,
      '--name',
      'UMA CLI client',
      '--scopes',
      'read',
      '--json',
      ...(grantTypes ? ['--grant-types', grantTypes] : []),
    ],
    { DATABASE_URL: testDatabaseUrl() },
  );
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const [row] = await server.dataSource.query<{ grant_types: string }[]>(
    'SELECT m.grant_types FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.client_id = $1',
    [clientId],
  );
  return { clientId, secret: (JSON.parse(result.stdout) as { client_secret: string }).client_secret, stored: row.grant_types };
}

describe('cli client create --grant-types with the UMA grant', () => {
  it('registers the UMA grant: the client may redeem tickets (an unknown one is invalid_grant, not unauthorized_client)', async () => {
    const client = await createWithCli(`client_credentials ${UMA_GRANT}`);
    expect(client.stored).toBe(`client_credentials ${UMA_GRANT}`);
    const response = await redeem(server, client, { ticket: 'no-such-ticket-0123456789abcdef' });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_grant');
  });

  it('leaves it out by default: unauthorized_client', async () => {
    const client = await createWithCli();
    const response = await redeem(server, client, { ticket: 'no-such-ticket-0123456789abcdef' });
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('unauthorized_client');
  });
});
