import { MAX_PAGE_SIZE, type ApiClient } from './api-client.js';
import { related, text, type ResourceObject } from './documents.js';

/** A resource definition with its scopes. */
export type Definition = {
  id: string;
  name: string;
  description: string;
  /** The FHIR mapping SMART scopes use (docs/guides/smart-backend-services.md); empty when unmapped. */
  fhirResourceType: string;
  fhirQuery: string;
  scopes: { id: string; name: string; smartPermissions: string }[];
};

/** What a picker offers: the record's id and the name an administrator knows it by. */
export type Choice = { id: string; label: string };

/** How many matches a picker offers at once: typing more narrows them. */
export const CHOICES = 10;

/** Clients whose clientId or name starts with the text (the server's prefix search). */
export async function searchClients(api: ApiClient, search: string): Promise<Choice[]> {
  const page = await api.list('uma-client', 1, CHOICES, [], { filter: { search }, sort: 'clientId' });
  return page.data.map((client) => ({ id: client.id, label: text(client, 'clientId') }));
}

/**
 * Clients allowed `uma_protection` whose clientId or name starts with the text: what a data
 * source may introspect with. The scope is judged here, on one page of the server's matches.
 */
export async function searchProtectionClients(api: ApiClient, search: string): Promise<Choice[]> {
  const page = await api.list('uma-client', 1, MAX_PAGE_SIZE, [], { filter: search ? { search } : {}, sort: 'clientId' });
  return page.data
    .filter((client) => text(client, 'allowedScopes').split(' ').includes('uma_protection'))
    .slice(0, CHOICES)
    .map((client) => ({ id: client.id, label: text(client, 'clientId') }));
}

export async function searchDefinitions(api: ApiClient, search: string): Promise<Choice[]> {
  const page = await api.list('resource-definition', 1, CHOICES, [], { filter: { search }, sort: 'name' });
  return page.data.map((definition) => ({ id: definition.id, label: text(definition, 'name') }));
}

/** The records of a type with these ids (at most a page's worth), by id. */
export async function recordsById(api: ApiClient, type: string, ids: (string | undefined)[]): Promise<Map<string, ResourceObject>> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))].slice(0, MAX_PAGE_SIZE);
  if (wanted.length === 0) return new Map();
  const page = await api.list(type, 1, MAX_PAGE_SIZE, [], { filter: { id: wanted.join(',') } });
  return new Map(page.data.map((record) => [record.id, record]));
}

/** The definitions of one page with their scopes: one request for the scopes of all of them. */
export async function withScopes(api: ApiClient, definitions: ResourceObject[]): Promise<Definition[]> {
  if (definitions.length === 0) return [];
  const scopes = await api.list('scope', 1, MAX_PAGE_SIZE, [], {
    filter: { resourceDefinition: definitions.map((definition) => definition.id).join(',') },
    sort: 'name',
  });
  return definitions.map((definition) => ({
    id: definition.id,
    name: text(definition, 'name'),
    description: text(definition, 'description'),
    fhirResourceType: text(definition, 'fhirResourceType'),
    fhirQuery: text(definition, 'fhirQuery'),
    scopes: scopes.data
      .filter((scope) => related(scope, 'resourceDefinition') === definition.id)
      .map((scope) => ({ id: scope.id, name: text(scope, 'name'), smartPermissions: text(scope, 'smartPermissions') })),
  }));
}
