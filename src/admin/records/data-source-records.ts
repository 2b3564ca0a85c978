import type { EntityManager } from 'typeorm';
import { DATA_SOURCE_KINDS } from '../../tickets/data-source.entity.js';
import { dataSourceClientLacksProtection } from '../../tickets/consent-rules.js';
import { delegationProblem } from '../../tickets/data-source-delegations.js';
import { ruleBroken } from '../json-api/admin-error.js';
import { TableRecordHandler, type TableSpec } from './table-record-handler.js';

// docs/concepts/consent-tickets.md#data-sources and docs/concepts/audience.md: resource servers (and identity providers), and the resource definitions each serves.
const dataSource: TableSpec = {
  type: 'data-source',
  table: 'data_source',
  attributes: [
    { name: 'name', column: 'name', kind: 'string', required: true },
    { name: 'kind', column: 'kind', kind: 'string', required: true, values: DATA_SOURCE_KINDS },
    { name: 'resourceUri', column: 'resource_uri', kind: 'absolute-uri', required: true, maxLength: 2048 },
  ],
  relationships: [{ name: 'umaClient', type: 'uma-client', table: 'client', column: 'client_id', optional: true }],
  uniques: { UQ_data_source_resource_uri: 'resourceUri' },
  search: ['name', 'resourceUri'],
  rules: [(manager, id) => introspectionClientProtects(manager, id)],
};

const dataSourceResourceDefinitions: TableSpec = {
  type: 'data-source-resource-definitions',
  table: 'data_source_resource_definitions',
  attributes: [],
  relationships: [
    { name: 'dataSource', type: 'data-source', table: 'data_source', column: 'data_source_id' },
    { name: 'resourceDefinition', type: 'resource-definition', table: 'resource_definition', column: 'resource_definition_id' },
  ],
  // As a scope's name per definition: a second identical pair is a 409.
  uniques: { UQ_data_source_resource_definition: 'resourceDefinition' },
};

// docs/guides/token-exchange.md#delegations: data source `from` may exchange a client's token for one meant for `to`.
const dataSourceDelegation: TableSpec = {
  type: 'data-source-delegation',
  table: 'data_source_delegation',
  attributes: [{ name: 'scopes', column: 'scopes', kind: 'string-array', required: false }],
  relationships: [
    { name: 'from', type: 'data-source', table: 'data_source', column: 'from_id' },
    { name: 'to', type: 'data-source', table: 'data_source', column: 'to_id' },
  ],
  // One pair at most once: a second is a 409.
  uniques: { UQ_data_source_delegation_pair: 'to' },
  rules: [(manager, id) => delegationIsSound(manager, id)],
};

/** docs/guides/token-exchange.md#delegations: the rules tickets/ states, as a 422 naming the member. */
async function delegationIsSound(manager: EntityManager, id: number): Promise<void> {
  const problem = await delegationProblem(manager, id);
  if (problem) throw ruleBroken(problem.message, problem.member === 'scopes' ? '/value/attributes/scopes' : `/value/relationships/${problem.member}`);
}

async function introspectionClientProtects(manager: EntityManager, id: number): Promise<void> {
  if (await dataSourceClientLacksProtection(manager, 'data-source', id)) {
    throw ruleBroken('the umaClient of a data-source must be allowed the uma_protection scope', '/value/relationships/umaClient');
  }
}

export const DATA_SOURCE_RECORD_HANDLERS = [dataSource, dataSourceResourceDefinitions, dataSourceDelegation].map((spec) => new TableRecordHandler(spec));
