import type { EntityManager } from 'typeorm';
import {
  fhirMappingTaken,
  queryWithoutType,
  scopeOutsideDefinition,
  ticketAndResourceClientsDiffer,
  type BindingAnchor,
  type CombinationAnchor,
} from '../../tickets/consent-rules.js';
import { MAX_PURPOSE_OF_USE_LENGTH, isPurposeOfUseCode } from '../../oauth/purpose-of-use.js';
import { ruleBroken } from '../json-api/admin-error.js';
import { TableRecordHandler, type TableSpec } from './table-record-handler.js';

const purpose: TableSpec = {
  type: 'purpose',
  table: 'purpose',
  attributes: [
    { name: 'name', column: 'name', kind: 'text', required: true, maxLength: 1024 },
    // docs/concepts/consent-tickets.md#purpose-of-use: the codes a UDAP request may assert to be covered.
    {
      name: 'purposesOfUse',
      column: 'purposes_of_use',
      kind: 'string-array',
      required: false,
      maxLength: MAX_PURPOSE_OF_USE_LENGTH,
      item: isPurposeOfUseCode,
      itemRule: 'must be a purpose-of-use code: an absolute URI without white space such as urn:oid:2.16.840.1.113883.5.8#TREAT',
    },
  ],
  relationships: [],
  search: ['name'],
};

// RFC 6749 NQCHAR: a name without & or =, a value without &.
const FHIR_QUERY =
  /^(?=[\s\S]{1,512}$)[\x21\x23-\x25\x27-\x3c\x3e-\x5b\x5d-\x7e]+=[\x21\x23-\x25\x27-\x5b\x5d-\x7e]+(?:&[\x21\x23-\x25\x27-\x3c\x3e-\x5b\x5d-\x7e]+=[\x21\x23-\x25\x27-\x5b\x5d-\x7e]+)*$/;

const resourceDefinition: TableSpec = {
  type: 'resource-definition',
  table: 'resource_definition',
  attributes: [
    { name: 'name', column: 'name', kind: 'string', required: true },
    { name: 'description', column: 'description', kind: 'text', required: false, nullable: true, maxLength: 2048 },
    // docs/guides/smart-backend-services.md: the FHIR type (and search query) SMART scopes name this definition by.
    {
      // The pattern bounds the length (a 422, as for any broken mapping rule); maxLength only keeps huge input out (400).
      name: 'fhirResourceType',
      column: 'fhir_resource_type',
      kind: 'string',
      required: false,
      nullable: true,
      maxLength: 4096,
      pattern: /^[A-Z][A-Za-z]{0,63}$/,
      patternRule: 'must be a FHIR resource type: a capital letter, then letters (at most 64)',
    },
    {
      name: 'fhirQuery',
      column: 'fhir_query',
      kind: 'string',
      required: false,
      nullable: true,
      maxLength: 4096,
      pattern: FHIR_QUERY,
      patternRule: 'must be at most 512 characters of param=value pairs joined by &, printable characters without space, " or \\',
    },
  ],
  relationships: [],
  uniques: { UQ_resource_definition_name: 'name' },
  search: ['name'],
  rules: [fhirMappingRules],
};

const scope: TableSpec = {
  type: 'scope',
  table: 'scope',
  attributes: [
    { name: 'name', column: 'name', kind: 'string', required: true },
    {
      name: 'smartPermissions',
      column: 'smart_permissions',
      kind: 'string',
      required: false,
      nullable: true,
      pattern: /^(?=.)c?r?u?d?s?$/,
      patternRule: 'must be SMART permission letters: a non-empty subset of c, r, u, d, s in that order',
    },
  ],
  relationships: [{ name: 'resourceDefinition', type: 'resource-definition', table: 'resource_definition', column: 'resource_definition_id' }],
  uniques: { UQ_scope_name_per_definition: 'name' },
};

const capabilityTicket: TableSpec = {
  type: 'capability-ticket',
  table: 'capability_ticket',
  attributes: [
    { name: 'ticketId', column: 'ticket_id', kind: 'string', required: true },
    { name: 'ticketName', column: 'ticket_name', kind: 'string', required: true },
  ],
  relationships: [
    { name: 'purpose', type: 'purpose', table: 'purpose', column: 'purpose_id' },
    { name: 'umaClient', type: 'uma-client', table: 'client', column: 'client_id' },
  ],
  uniques: { UQ_capability_ticket_ticket_id: 'ticketId' },
  search: ['ticketId', 'ticketName'],
  rules: [(manager, id) => ticketsAndResourcesAgree(manager, 'capability-ticket', id, '/value/relationships/umaClient')],
};

const requestedResource: TableSpec = {
  type: 'requested-resource',
  table: 'requested_resource',
  attributes: [
    { name: 'maxPermissionDuration', column: 'max_permission_duration', kind: 'positive-integer', required: true },
    { name: 'requestedResourceId', column: 'requested_resource_id', kind: 'string', required: true },
  ],
  relationships: [
    { name: 'resourceDefinition', type: 'resource-definition', table: 'resource_definition', column: 'resource_definition_id' },
    { name: 'umaClient', type: 'uma-client', table: 'client', column: 'client_id' },
  ],
  rules: [
    (manager, id) => ticketsAndResourcesAgree(manager, 'requested-resource', id, '/value/relationships/umaClient'),
    (manager, id) => scopesBelongToDefinition(manager, 'requested-resource', id, '/value/relationships/resourceDefinition'),
  ],
};

const requestedResourceScopes: TableSpec = {
  type: 'requested-resource-scopes',
  table: 'requested_resource_scopes',
  attributes: [],
  relationships: [
    { name: 'scope', type: 'scope', table: 'scope', column: 'scope_id' },
    { name: 'purpose', type: 'purpose', table: 'purpose', column: 'purpose_id' },
    { name: 'requestedResource', type: 'requested-resource', table: 'requested_resource', column: 'requested_resource_id' },
  ],
  rules: [(manager, id) => scopesBelongToDefinition(manager, 'binding', id, '/value/relationships/scope')],
};

const combination: TableSpec = {
  type: 'requested-resources-capability-tickets',
  table: 'requested_resources_capability_tickets',
  attributes: [],
  relationships: [
    { name: 'capabilityTicket', type: 'capability-ticket', table: 'capability_ticket', column: 'capability_ticket_id' },
    { name: 'requestedResource', type: 'requested-resource', table: 'requested_resource', column: 'requested_resource_id' },
  ],
  rules: [(manager, id) => ticketsAndResourcesAgree(manager, 'combination', id, '/value/relationships/requestedResource')],
};

/** docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent: a combination's capability ticket and requested resource belong to one client. */
async function ticketsAndResourcesAgree(manager: EntityManager, anchor: CombinationAnchor, id: number, pointer: string): Promise<void> {
  if (await ticketAndResourceClientsDiffer(manager, anchor, id)) {
    throw ruleBroken('the capability ticket and the requested resource of a combination must belong to the same uma-client', pointer);
  }
}

/** docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent: a requested-resource-scopes binds a scope of the requested resource's definition. */
async function scopesBelongToDefinition(manager: EntityManager, anchor: BindingAnchor, id: number, pointer: string): Promise<void> {
  if (await scopeOutsideDefinition(manager, anchor, id)) {
    throw ruleBroken("the scope must be a scope of the requested resource's resource-definition", pointer);
  }
}

/** docs/guides/smart-backend-services.md: a query only with a type; one definition per (type, query), no query being a value. */
async function fhirMappingRules(manager: EntityManager, id: number): Promise<void> {
  if (await queryWithoutType(manager, id)) throw ruleBroken('fhirQuery needs a fhirResourceType', '/value/attributes/fhirQuery');
  if (await fhirMappingTaken(manager, id)) {
    throw ruleBroken('another resource-definition already has this fhirResourceType and fhirQuery', '/value/attributes/fhirResourceType');
  }
}

export const TICKET_RECORD_HANDLERS = [purpose, resourceDefinition, scope, capabilityTicket, requestedResource, requestedResourceScopes, combination].map(
  (spec) => new TableRecordHandler(spec),
);
