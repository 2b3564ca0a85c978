// The composition root's list of every feature's TypeORM entities, handed down to the database
// layer (DatabaseModule.forRoot, buildDataSourceOptions) by the server, the CLI, ormconfig.ts and
// the tests, so that src/database/ knows no feature.
import { Client } from './clients/client.entity.js';
import { ClientMetadata } from './clients/client-metadata.entity.js';
import { RedirectUri } from './clients/redirect-uri.entity.js';
import { SigningKey } from './keys/signing-key.entity.js';
import { RefreshToken } from './tokens/refresh-token.entity.js';
import { RevokedToken } from './revocation/revoked-token.entity.js';
import { AuditEvent } from './audit/audit-event.entity.js';
import { CapabilityTicket } from './tickets/capability-ticket.entity.js';
import { Purpose } from './tickets/purpose.entity.js';
import { RequestedResource } from './tickets/requested-resource.entity.js';
import { RequestedResourceScopes } from './tickets/requested-resource-scopes.entity.js';
import { RequestedResourcesCapabilityTickets } from './tickets/requested-resources-capability-tickets.entity.js';
import { ResourceDefinition } from './tickets/resource-definition.entity.js';
import { Scope } from './tickets/scope.entity.js';
import { DataSourceEntity } from './tickets/data-source.entity.js';
import { DataSourceResourceDefinitions } from './tickets/data-source-resource-definitions.entity.js';
import { DataSourceDelegation } from './tickets/data-source-delegation.entity.js';
import { UmaResource } from './uma/uma-resource.entity.js';
import { UmaResourceScope } from './uma/uma-resource-scope.entity.js';
import { PermissionTicket } from './uma/permission-ticket.entity.js';
import { Disclosure } from './disclosures/disclosure.entity.js';
import { DisclosureBasis } from './disclosures/disclosure-basis.entity.js';
import { PendingWithdrawal } from './disclosures/pending-withdrawal.entity.js';
import { StatusList } from './status-lists/status-list.entity.js';
import { InitialAccessToken } from './clients/initial-access-token.entity.js';
import { ClientRegistrationRecord } from './registration/client-registration.entity.js';
import { TrustCommunity } from './udap/trust-community.entity.js';

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
  DataSourceDelegation,
  DataSourceResourceDefinitions,
  UmaResource,
  UmaResourceScope,
  PermissionTicket,
  Disclosure,
  DisclosureBasis,
  PendingWithdrawal,
  StatusList,
  InitialAccessToken,
  ClientRegistrationRecord,
  TrustCommunity,
];
