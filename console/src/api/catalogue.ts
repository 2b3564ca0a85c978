import type { ApiClient } from './api-client.js';
import { related, text, type ResourceObject } from './documents.js';

/** Resource definitions with their scopes, clients and data sources: what most screens pick from. */
export type Definition = {
  id: string; name: string; description: string;
  /** The FHIR mapping SMART scopes use (docs/guides/smart-backend-services.md); empty when unmapped. */
  fhirResourceType: string; fhirQuery: string;
  scopes: { id: string; name: string; smartPermissions: string }[];
};

export async function loadDefinitions(api: ApiClient): Promise<Definition[]> {
  const [definitions, scopes] = await Promise.all([api.listAll('resource-definition'), api.listAll('scope')]);
  return definitions.data.map((definition) => ({
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

export async function loadClients(api: ApiClient): Promise<ResourceObject[]> {
  return (await api.listAll('uma-client')).data;
}
