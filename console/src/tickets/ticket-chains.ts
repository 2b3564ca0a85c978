import { MAX_PAGE_SIZE, type ApiClient } from '../api/api-client.js';
import type { Choice } from '../api/catalogue.js';
import { recordsById } from '../api/catalogue.js';
import { related, remove, text, type Operation, type ResourceObject } from '../api/documents.js';
import { PAGE_SIZE } from '../forms/paging.js';
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

/** One page of capability tickets (one client's, or everyone's), as chains; `total` counts the tickets. */
export type ClientTickets = { chains: Chain[]; total: number };

const byIds = (records: ResourceObject[]) => records.map((record) => record.id).join(',');

/**
 * Reads one page of tickets, newest first (of one client when `client` is given, of every client
 * otherwise), and the records each chain is made of: a handful of filtered requests (by client,
 * then by the ids found), never a whole collection.
 */
export async function loadTickets(api: ApiClient, client: Choice | undefined, page: number, search: string): Promise<ClientTickets> {
  const tickets = await api.list('capability-ticket', page, PAGE_SIZE, ['purpose'], {
    filter: { ...(client ? { umaClient: client.id } : {}), ...(search ? { search } : {}) },
    sort: '-id',
  });
  if (tickets.data.length === 0) return { chains: [], total: tickets.meta.total };
  const clients = client
    ? new Map<string, ResourceObject>([[client.id, { type: 'uma-client', id: client.id, attributes: { clientId: client.label } }]])
    : await recordsById(
        api,
        'uma-client',
        tickets.data.map((ticket) => related(ticket, 'umaClient')),
      );
  const combinations = await api.list('requested-resources-capability-tickets', 1, MAX_PAGE_SIZE, ['requestedResource'], {
    filter: { capabilityTicket: byIds(tickets.data) },
  });
  const requested = (combinations.included ?? []).filter((record) => record.type === 'requested-resource');
  const [bindings, definitions] = await Promise.all([
    requested.length === 0
      ? undefined
      : api.list('requested-resource-scopes', 1, MAX_PAGE_SIZE, ['scope'], { filter: { requestedResource: byIds(requested) } }),
    recordsById(
      api,
      'resource-definition',
      requested.map((resource) => related(resource, 'resourceDefinition')),
    ),
  ]);
  const find = (records: ResourceObject[] | undefined, type: string, id: string | undefined) =>
    records?.find((record) => record.type === type && record.id === id);
  const chains: Chain[] = [];
  for (const ticket of tickets.data) {
    for (const combination of combinations.data.filter((candidate) => related(candidate, 'capabilityTicket') === ticket.id)) {
      const resource = find(requested, 'requested-resource', related(combination, 'requestedResource'));
      if (!resource) continue;
      const ownBindings = (bindings?.data ?? []).filter((binding) => related(binding, 'requestedResource') === resource.id);
      const purposeId = related(ticket, 'purpose') ?? '';
      chains.push({
        combinationId: combination.id,
        clientRecordId: related(ticket, 'umaClient') ?? '',
        clientId: text(
          clients.get(related(ticket, 'umaClient') ?? '') ?? { type: 'uma-client', id: '', attributes: { clientId: '(removed client)' } },
          'clientId',
        ),
        ticketRecordId: ticket.id,
        ticketId: text(ticket, 'ticketId'),
        ticketName: text(ticket, 'ticketName'),
        purposeId,
        purpose: text(find(tickets.included, 'purpose', purposeId) ?? { type: 'purpose', id: '', attributes: {} }, 'name'),
        requestedResourceRecordId: resource.id,
        requestedResourceId: text(resource, 'requestedResourceId'),
        maxPermissionDuration: Number(resource.attributes.maxPermissionDuration),
        definition: text(
          definitions.get(related(resource, 'resourceDefinition') ?? '') ?? {
            type: 'resource-definition',
            id: '',
            attributes: { name: '(unknown definition)' },
          },
          'name',
        ),
        scopes: ownBindings.map((binding) =>
          text(find(bindings?.included, 'scope', related(binding, 'scope')) ?? { type: 'scope', id: '', attributes: { name: '?' } }, 'name'),
        ),
        scopeBindingIds: ownBindings.map((binding) => binding.id),
      });
    }
  }
  return { chains, total: tickets.meta.total };
}

/**
 * Removing a ticket: its combination, and each record of its chain that nothing else uses (the
 * requested resource with its scope bindings, the capability ticket, the purpose), in one request
 * and in an order the foreign keys accept. What else uses them is asked of the server (counts of
 * filtered lists), since the console holds only one page of one client's tickets.
 */
export async function removalOf(api: ApiClient, chain: Chain): Promise<Operation[]> {
  const count = async (type: string, filter: Record<string, string>) => (await api.list(type, 1, 1, [], { filter })).meta.total;
  const [resourceUses, ticketUses, purposeTickets, purposeBindings, ownPurposeBindings] = await Promise.all([
    count('requested-resources-capability-tickets', { requestedResource: chain.requestedResourceRecordId }),
    count('requested-resources-capability-tickets', { capabilityTicket: chain.ticketRecordId }),
    count('capability-ticket', { purpose: chain.purposeId }),
    count('requested-resource-scopes', { purpose: chain.purposeId }),
    count('requested-resource-scopes', { purpose: chain.purposeId, requestedResource: chain.requestedResourceRecordId }),
  ]);
  const operations = [remove('requested-resources-capability-tickets', chain.combinationId)];
  const resourceKept = resourceUses > 1;
  const ticketKept = ticketUses > 1;
  const removedBindings = resourceKept ? [] : chain.scopeBindingIds;
  if (!resourceKept) {
    operations.push(...removedBindings.map((id) => remove('requested-resource-scopes', id)));
    operations.push(remove('requested-resource', chain.requestedResourceRecordId));
  }
  if (!ticketKept) operations.push(remove('capability-ticket', chain.ticketRecordId));
  // The purpose goes when no ticket and no scope binding refers to it after this request.
  const purposeUsed = purposeTickets - (ticketKept ? 0 : 1) > 0 || purposeBindings - (resourceKept ? 0 : ownPurposeBindings) > 0;
  if (!purposeUsed && chain.purposeId) operations.push(remove('purpose', chain.purposeId));
  return operations;
}
