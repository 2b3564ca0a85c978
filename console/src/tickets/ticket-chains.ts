import type { ApiClient } from '../api/api-client.js';
import { loadClients, loadDefinitions, type Definition } from '../api/catalogue.js';
import { related, remove, text, type Operation, type ResourceObject } from '../api/documents.js';
import type { TicketChain } from './ticket-sentence.js';

/** A combination of a capability ticket and a requested resource, with every record of its chain. */
export type Chain = TicketChain & {
  combinationId: string;
  clientRecordId: string;
  ticketRecordId: string;
  ticketName: string;
  purposeId: string;
  requestedResourceRecordId: string;
  requestedResourceId: string;
  scopeBindingIds: string[];
};

export type TicketData = { chains: Chain[]; clients: ResourceObject[]; definitions: Definition[]; tickets: ResourceObject[]; bindings: ResourceObject[] };

/** Reads every record a consent ticket is made of, and puts each chain together. */
export async function loadTickets(api: ApiClient): Promise<TicketData> {
  const [clients, definitions, combinations, tickets, requested, bindings, purposes] = await Promise.all([
    loadClients(api), loadDefinitions(api),
    api.listAll('requested-resources-capability-tickets'), api.listAll('capability-ticket'), api.listAll('requested-resource'),
    api.listAll('requested-resource-scopes'), api.listAll('purpose'),
  ]);
  const byId = (records: ResourceObject[]) => new Map(records.map((record) => [record.id, record]));
  const clientsById = byId(clients);
  const ticketsById = byId(tickets.data);
  const requestedById = byId(requested.data);
  const purposesById = byId(purposes.data);
  const scopeNames = new Map(definitions.flatMap((definition) => definition.scopes.map((scope) => [scope.id, scope.name])));
  const chains: Chain[] = [];
  for (const combination of combinations.data) {
    const ticket = ticketsById.get(related(combination, 'capabilityTicket') ?? '');
    const resource = requestedById.get(related(combination, 'requestedResource') ?? '');
    if (!ticket || !resource) continue;
    const client = clientsById.get(related(ticket, 'umaClient') ?? '');
    const definition = definitions.find((candidate) => candidate.id === related(resource, 'resourceDefinition'));
    const ownBindings = bindings.data.filter((binding) => related(binding, 'requestedResource') === resource.id);
    const purposeId = related(ticket, 'purpose') ?? '';
    chains.push({
      combinationId: combination.id,
      clientRecordId: client?.id ?? '',
      clientId: client ? text(client, 'clientId') : '(unknown client)',
      ticketRecordId: ticket.id,
      ticketId: text(ticket, 'ticketId'),
      ticketName: text(ticket, 'ticketName'),
      purposeId,
      purpose: text(purposesById.get(purposeId) ?? { type: 'purpose', id: '', attributes: {} }, 'name'),
      requestedResourceRecordId: resource.id,
      requestedResourceId: text(resource, 'requestedResourceId'),
      maxPermissionDuration: Number(resource.attributes.maxPermissionDuration),
      definition: definition?.name ?? '(unknown definition)',
      scopes: ownBindings.map((binding) => scopeNames.get(related(binding, 'scope') ?? '') ?? '?'),
      scopeBindingIds: ownBindings.map((binding) => binding.id),
    });
  }
  return { chains, clients, definitions, tickets: tickets.data, bindings: bindings.data };
}

/**
 * Removing a ticket: its combination, and each record of its chain that nothing else uses (the
 * requested resource with its scope bindings, the capability ticket, the purpose), in one request
 * and in an order the foreign keys accept.
 */
export function removalOf(chain: Chain, data: TicketData): Operation[] {
  const others = data.chains.filter((other) => other.combinationId !== chain.combinationId);
  const operations = [remove('requested-resources-capability-tickets', chain.combinationId)];
  const resourceKept = others.some((other) => other.requestedResourceRecordId === chain.requestedResourceRecordId);
  const ticketKept = others.some((other) => other.ticketRecordId === chain.ticketRecordId);
  const removedBindings = resourceKept ? [] : chain.scopeBindingIds;
  if (!resourceKept) {
    operations.push(...removedBindings.map((id) => remove('requested-resource-scopes', id)));
    operations.push(remove('requested-resource', chain.requestedResourceRecordId));
  }
  if (!ticketKept) operations.push(remove('capability-ticket', chain.ticketRecordId));
  const purposeUsed =
    data.tickets.some((ticket) => related(ticket, 'purpose') === chain.purposeId && !(ticket.id === chain.ticketRecordId && !ticketKept)) ||
    data.bindings.some((binding) => related(binding, 'purpose') === chain.purposeId && !removedBindings.includes(binding.id));
  if (!purposeUsed && chain.purposeId) operations.push(remove('purpose', chain.purposeId));
  return operations;
}
