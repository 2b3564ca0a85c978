import { add, freshIds, patchAdmin, ref } from './admin.js';
import type { TestApp } from './test-app.js';

export type ConsentGrant = {
  clientId: string;
  secret: string;
  client: number;
  definitionName: string;
  combination: number;
  ticketId: string;
  resourceId: string;
};

/**
 * Through the admin interface: a client allowed `<definition>:read <definition>:write uma_protection`
 * (and `extraScopes`), the definition with scopes read and write, and, unless `ticket: false`,
 * a consent ticket covering read.
 */
export async function consentWorld(
  server: TestApp,
  options: { ticket?: boolean; maxPermissionDuration?: number; grantTypes?: string } = {},
): Promise<ConsentGrant> {
  const [client, definition, read, write, purpose, ticket, resource, binding, combination] = freshIds(9);
  const definitionName = `blood-glucose-level-${definition}`;
  const clientId = `consent-${client}`;
  const ticketId = `ticket-${ticket}`;
  const resourceId = `glucose-of-patient-${resource}`;
  const operations = [
    add('uma-client', { id: client, attributes: { clientId, clientName: 'c', allowedScopes: `${definitionName}:read ${definitionName}:write uma_protection`, grantTypes: options.grantTypes ?? 'client_credentials' } }),
    add('resource-definition', { id: definition, attributes: { name: definitionName } }),
    add('scope', { id: read, attributes: { name: 'read' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
    add('scope', { id: write, attributes: { name: 'write' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
    add('purpose', { id: purpose, attributes: { name: 'Your doctor follows your glucose' } }),
  ];
  if (options.ticket !== false) {
    operations.push(
      add('capability-ticket', { id: ticket, attributes: { ticketId, ticketName: 'Glucose' }, relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', client) } }),
      add('requested-resource', { id: resource, attributes: { maxPermissionDuration: options.maxPermissionDuration ?? 7200, requestedResourceId: resourceId }, relationships: { resourceDefinition: ref('resource-definition', definition), umaClient: ref('uma-client', client) } }),
      add('requested-resource-scopes', { id: binding, relationships: { scope: ref('scope', read), purpose: ref('purpose', purpose), requestedResource: ref('requested-resource', resource) } }),
      add('requested-resources-capability-tickets', { id: combination, relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', resource) } }),
    );
  }
  const response = await patchAdmin(server, operations);
  if (response.status !== 200) throw new Error(`consent world not created: ${JSON.stringify(response.body)}`);
  return { clientId, secret: response.body[0].meta.clientSecret, client, definitionName, combination, ticketId, resourceId };
}
