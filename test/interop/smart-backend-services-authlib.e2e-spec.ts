import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportPKCS8 } from 'jose';
import { add, freshIds, patchAdmin, ref } from '../support/admin.js';
import { JwksServer } from '../support/jwks-server.js';
import { claimsOf, clientKey, type ClientKey } from '../support/keys.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A SMART backend client on a second stack, Debian's python3-authlib (through /usr/bin/python3,
 * where Debian's modules import): `npm run test:interop` installs it; `npm test` does not need it.
 * The byte-exact replays of Inferno's requests are in test/smart-backend-services.e2e-spec.ts.
 */
let server: TestApp;
let keys: JwksServer;
let rsa: ClientKey;
let folder: string;

/** A FHIR type no other test maps (letters only). */
const freshType = () =>
  `Obs${randomBytes(6)
    .toString('hex')
    .replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)])}`;

/** A backend client with its key at a jwks_uri, allowed `<definition>:read` (SMART `rs`) on a FHIR type that a consent ticket covers. */
async function backendClient(): Promise<{ clientId: string; type: string }> {
  const [client, definition, scope, purpose, ticket, resource, binding, combination] = freshIds(8);
  const type = freshType();
  const clientId = `authlib-${client}`;
  const jwksUri = keys.serve(keys.nextPath(), { keys: [rsa.jwk] });
  const response = await patchAdmin(server, [
    add('uma-client', {
      id: client,
      attributes: {
        clientId,
        clientName: 'Bulk export (authlib)',
        clientAuthenticationType: 'private_key_jwt',
        jwksUri,
        grantTypes: 'client_credentials',
        allowedScopes: `observations-${definition}:read`,
        accessTokenLifetime: 300,
      },
    }),
    add('resource-definition', { id: definition, attributes: { name: `observations-${definition}`, fhirResourceType: type } }),
    add('scope', {
      id: scope,
      attributes: { name: 'read', smartPermissions: 'rs' },
      relationships: { resourceDefinition: ref('resource-definition', definition) },
    }),
    add('purpose', { id: purpose, attributes: { name: 'Quality reporting' } }),
    add('capability-ticket', {
      id: ticket,
      attributes: { ticketId: `T-${ticket}`, ticketName: 'Export' },
      relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', client) },
    }),
    add('requested-resource', {
      id: resource,
      attributes: { maxPermissionDuration: 3600, requestedResourceId: `export-${resource}` },
      relationships: { resourceDefinition: ref('resource-definition', definition), umaClient: ref('uma-client', client) },
    }),
    add('requested-resource-scopes', {
      id: binding,
      relationships: { scope: ref('scope', scope), purpose: ref('purpose', purpose), requestedResource: ref('requested-resource', resource) },
    }),
    add('requested-resources-capability-tickets', {
      id: combination,
      relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', resource) },
    }),
  ]);
  if (response.status !== 200) throw new Error(`backend client not created: ${JSON.stringify(response.body)}`);
  return { clientId, type };
}

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  keys = new JwksServer();
  await keys.start();
  server = await startTestApp({ JWKS_URI_ALLOW_HTTP: 'true' });
  rsa = await clientKey('RS384');
  folder = mkdtempSync(join(tmpdir(), 'authlib-'));
});

afterAll(async () => {
  await server.close();
  await keys.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('a second client stack: Debian python3-authlib', () => {
  it('gets tokens with RS384 private_key_jwt, a fresh assertion each time', async () => {
    const { clientId, type } = await backendClient();
    const keyFile = join(folder, 'client-key.pem');
    writeFileSync(keyFile, (await exportPKCS8(rsa.privateKey)) + '\n', { mode: 0o600 });
    const script = fileURLToPath(new URL('../clients/authlib_backend_token.py', import.meta.url));
    const finished = await run('/usr/bin/python3', [script, `${server.url}/oauth2/token`, clientId, keyFile, String(rsa.jwk.kid), `system/${type}.rs`, '2']);
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    const tokens = finished.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { token_type: string; scope: string; expires_in: number; access_token: string });
    expect(tokens).toHaveLength(2);
    for (const token of tokens) {
      expect(token).toMatchObject({ token_type: 'Bearer', scope: `system/${type}.rs`, expires_in: 300 });
      expect((claimsOf(token.access_token) as { scope: string }).scope).toBe(`system/${type}.rs`);
    }
  });
});
