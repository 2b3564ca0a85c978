import type { DataSourceOptions } from 'typeorm';
import { Client } from '../clients/client.entity.js';
import { ClientMetadata } from '../clients/client-metadata.entity.js';
import { RedirectUri } from '../clients/redirect-uri.entity.js';
import { SigningKey } from '../tokens/signing-key.entity.js';
import { RefreshToken } from '../tokens/refresh-token.entity.js';
import { RevokedToken } from '../tokens/revoked-token.entity.js';
import { AuditEvent } from '../tickets/audit-event.entity.js';
import { CapabilityTicket } from '../tickets/capability-ticket.entity.js';
import { Purpose } from '../tickets/purpose.entity.js';
import { RequestedResource } from '../tickets/requested-resource.entity.js';
import { RequestedResourceScopes } from '../tickets/requested-resource-scopes.entity.js';
import { RequestedResourcesCapabilityTickets } from '../tickets/requested-resources-capability-tickets.entity.js';
import { ResourceDefinition } from '../tickets/resource-definition.entity.js';
import { Scope } from '../tickets/scope.entity.js';
import { DataSourceEntity } from '../tickets/data-source.entity.js';
import { DataSourceResourceDefinitions } from '../tickets/data-source-resource-definitions.entity.js';
import { UmaResource } from '../uma/uma-resource.entity.js';
import { UmaResourceScope } from '../uma/uma-resource-scope.entity.js';
import { PermissionTicket } from '../uma/permission-ticket.entity.js';
import { Disclosure } from '../disclosures/disclosure.entity.js';
import { DisclosureBasis } from '../disclosures/disclosure-basis.entity.js';
import { PendingWithdrawal } from '../disclosures/pending-withdrawal.entity.js';
import { InitialAccessToken } from '../registration/initial-access-token.entity.js';
import { ClientRegistrationRecord } from '../registration/client-registration.entity.js';
import { MIGRATIONS } from './migrations/index.js';

export const ENTITIES = [
  Client,
  ClientMetadata,
  RedirectUri,
  SigningKey,
  ResourceDefinition,
  Scope,
  Purpose,
  CapabilityTicket,
  RequestedResource,
  RequestedResourceScopes,
  RequestedResourcesCapabilityTickets,
  AuditEvent,
  RevokedToken,
  RefreshToken,
  DataSourceEntity,
  DataSourceResourceDefinitions,
  UmaResource,
  UmaResourceScope,
  PermissionTicket,
  Disclosure,
  DisclosureBasis,
  PendingWithdrawal,
  InitialAccessToken,
  ClientRegistrationRecord,
];

/**
 * The one options builder for the server, the tests and the TypeORM CLI (ormconfig.ts). The
 * server passes its share of DATABASE_POOL_SIZE (connection-budget.ts); one-off tools keep 10.
 */
export function buildDataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'all',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 5_000,
      // A query stuck behind a dead connection must fail fast, not hold a token request.
      query_timeout: 10_000,
      keepAlive: true,
      application_name: 'authorization-server',
    },
  };
}
