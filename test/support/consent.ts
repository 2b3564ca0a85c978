import { add, freshIds, patchAdmin, ref } from './admin.js';
import { clientSecretOf } from './bodies.js';
import type { TestApp } from './test-app.js';

export type ConsentGrant = {
  clientId: string;
  secret: string;
  client: number;
  definitionName: string;
  combination: number;
  ticketId: string;
  resourceId: string;
  /** Row ids of every record made. */
  ids: { definition: number; read: number; write: number; purpose: number; ticket: number; resource: number; binding: number };
};

/**
 * Through the admin interface: a client allowed `<definition>:read <definition>:write uma_protection`
 * (and `extraScopes`), the definition with scopes read and write, and, unless `ticket: false`,
 * a consent ticket covering read.
 */
export async function consentWorld(
  server: TestApp,
  options: { ticket?: boolean; maxPermissionDuration?: number; grantTypes?: string; extraScopes?: string } = {},
): Promise<ConsentGrant> {
  const [client, definition, read, write, purpose, ticket, resource, binding, combination] = freshIds(9);
  const definitionName = `blood-glucose-level-${definition}`;
  const clientId = `consent-${client}`;
  const ticketId = `ticket-${ticket}`;
  const resourceId = `glucose-of-patient-${resource}`;
  const operations = [
    add('uma-client', {
      id: client,
      attributes: {
        clientId,
        clientName: 'c',
        allowedScopes: `${definitionName}:read ${definitionName}:write uma_protection${options.extraScopes ? ` ${options.extraScopes}` : ''}`,
        grantTypes: options.grantTypes ?? 'client_credentials',
      },
    }),
    add('resource-definition', { id: definition, attributes: { name: definitionName } }),
    add('scope', { id: read, attributes: { name: 'read' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
    add('scope', { id: write, attributes: { name: 'write' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
    add('purpose', { id: purpose, attributes: { name: 'Your doctor follows your glucose' } }),
  ];
  if (options.ticket !== false) {
    operations.push(
      add('capability-ticket', {
        id: ticket,
        attributes: { ticketId, ticketName: 'Glucose' },
        relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', client) },
      }),
      add('requested-resource', {
        id: resource,
        attributes: { maxPermissionDuration: options.maxPermissionDuration ?? 7200, requestedResourceId: resourceId },
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
    );
  }
  const response = await patchAdmin(server, operations);
  if (response.status !== 200) throw new Error(`consent world not created: ${JSON.stringify(response.body)}`);
  return {
    clientId,
    secret: clientSecretOf(response),
    client,
    definitionName,
    combination,
    ticketId,
    resourceId,
    ids: { definition, read, write, purpose, ticket, resource, binding },
  };
}

/** A data source (no introspection client unless given) serving these definitions; returns its id and resourceUri. */
export async function enrolDataSource(
  server: TestApp,
  definitions: number[],
  options: { umaClient?: number } = {},
): Promise<{ id: number; resourceUri: string; pairs: number[] }> {
  const [id, ...pairs] = freshIds(1 + definitions.length);
  const resourceUri = `https://data-source-${id}.example/api`;
  const response = await patchAdmin(server, [
    add('data-source', {
      id,
      attributes: { name: `Data source ${id}`, kind: 'resource-server', resourceUri },
      ...(options.umaClient ? { relationships: { umaClient: ref('uma-client', options.umaClient) } } : {}),
    }),
    ...definitions.map((definition, index) =>
      add('data-source-resource-definitions', {
        id: pairs[index],
        relationships: { dataSource: ref('data-source', id), resourceDefinition: ref('resource-definition', definition) },
      }),
    ),
  ]);
  if (response.status !== 200) throw new Error(`data source not enrolled: ${JSON.stringify(response.body)}`);
  return { id, resourceUri, pairs: pairs };
}
