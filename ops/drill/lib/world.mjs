// The world the load needs, made through the admin interface of instance 1: a client with a
// consent ticket (resource-scope tokens), a probe client, and before each failover a new
// private_key_jwt client.
import { exportJWK, generateKeyPair } from 'jose';
import { instances, secrets } from './cluster.mjs';
import { basicAuth, tokenRequest } from './load.mjs';

/** A request to an instance's admin interface (JSON:API with JSON Patch). */
export async function admin(instance, method, path, body) {
  const response = await fetch(`${instance.adminUrl}${path}`, {
    method,
    headers: { Authorization: secrets.admin, 'Content-Type': 'application/vnd.api+json; ext=jsonpatch', Accept: 'application/vnd.api+json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const add = (type, value) => ({ op: 'add', path: `/${type}`, value: { type, ...value } });
const ref = (type, id) => ({ data: { type, id: String(id) } });
let nextId = 1_000 + Math.floor(Math.random() * 1_000) * 100;
const ids = (count) => Array.from({ length: count }, () => (nextId += 1));

export async function makeWorld() {
  const key = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(key.publicKey)), kid: 'drill-key', alg: 'ES256', use: 'sig' };
  const [client, definition, read, purpose, ticket, resource, binding, combination, probe] = ids(9);
  const definitionName = 'drill-glucose';
  const response = await admin(instances[0], 'PATCH', '/admin', [
    add('uma-client', {
      id: client,
      attributes: { clientId: 'drill-resource-client', clientName: 'drill', allowedScopes: `${definitionName}:read`, grantTypes: 'client_credentials' },
    }),
    add('uma-client', {
      id: probe,
      attributes: { clientId: 'drill-probe-client', clientName: 'drill probe', allowedScopes: 'read', grantTypes: 'client_credentials' },
    }),
    add('resource-definition', { id: definition, attributes: { name: definitionName } }),
    add('scope', { id: read, attributes: { name: 'read' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
    add('purpose', { id: purpose, attributes: { name: 'Failover drill' } }),
    add('capability-ticket', {
      id: ticket,
      attributes: { ticketId: 'drill-ticket', ticketName: 'Drill' },
      relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', client) },
    }),
    add('requested-resource', {
      id: resource,
      attributes: { maxPermissionDuration: 7200, requestedResourceId: 'drill-patient' },
      relationships: { resourceDefinition: ref('resource-definition', definition), umaClient: ref('uma-client', client) },
    }),
    add('requested-resource-scopes', {
      id: binding,
      relationships: { scope: ref('scope', read), purpose: ref('purpose', purpose), requestedResource: ref('requested-resource', resource) },
    }),
    add('requested-resources-capability-tickets', {
      id: combination,
      relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', resource) },
    }),
  ]);
  if (response.status !== 200) throw new Error(`the drill's clients were not created: ${JSON.stringify(response.body)}`);
  const world = {
    resourceClient: { clientId: 'drill-resource-client', secret: response.body[0].meta.clientSecret, scope: `${definitionName}:read` },
    keyClient: undefined,
    key: { privateKey: key.privateKey, jwk, scopes: `${definitionName}:read read` },
    probeClient: { id: probe, basic: basicAuth('drill-probe-client', response.body[1].meta.clientSecret) },
  };
  // Each instance verifies the probe client's secret once now, so that later probes time the change, not the slow hash.
  for (const instance of instances) {
    const answer = await tokenRequest(instance, { grant_type: 'client_credentials', scope: 'read' }, { Authorization: world.probeClient.basic });
    if (answer.status !== 200) throw new Error(`the probe client got ${answer.status} from ${instance.name}`);
  }
  return world;
}

// Each failover has its own private_key_jwt client. Its replay check (lib/checks.mjs) sends every
// accepted assertion again, and the server counts each replay as a failed client authentication
// (docs/reference/token-endpoint.md#brute-force-protection): past 20 in a minute the client is
// over its limit, and a client shared by the next failover's load would start that failover locked.
export async function addKeyClient(world, round) {
  const [id] = ids(1);
  const clientId = `drill-key-client-${round}`;
  const response = await admin(instances[0], 'PATCH', '/admin', [
    add('uma-client', {
      id,
      attributes: {
        clientId,
        clientName: `drill key client ${round}`,
        allowedScopes: world.key.scopes,
        grantTypes: 'client_credentials',
        clientAuthenticationType: 'private_key_jwt',
        jwksRaw: JSON.stringify({ keys: [world.key.jwk] }),
      },
    }),
  ]);
  if (response.status !== 200) throw new Error(`the drill's key client was not created: ${JSON.stringify(response.body)}`);
  world.keyClient = { clientId, privateKey: world.key.privateKey };
}
