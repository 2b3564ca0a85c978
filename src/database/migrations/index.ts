import { Initial1763800000000 } from './1763800000000-Initial.js';
import { Tickets1763900000000 } from './1763900000000-Tickets.js';
import { TicketIndexes1764000000000 } from './1764000000000-TicketIndexes.js';
import { TokenLifecycle1764100000000 } from './1764100000000-TokenLifecycle.js';
import { ProofOfPossession1764200000000 } from './1764200000000-ProofOfPossession.js';
import { DataSources1764300000000 } from './1764300000000-DataSources.js';
import { AdminFilterIndexes1764500000000 } from './1764500000000-AdminFilterIndexes.js';
import { SmartBackendServices1764600000000 } from './1764600000000-SmartBackendServices.js';
import { SmartFilterIndexes1764650000000 } from './1764650000000-SmartFilterIndexes.js';
import { Disclosures1764700000000 } from './1764700000000-Disclosures.js';
import { Uma1764800000000 } from './1764800000000-Uma.js';
import { PendingWithdrawals1764900000000 } from './1764900000000-PendingWithdrawals.js';
import { SharedDisclosureBasis1765000000000 } from './1765000000000-SharedDisclosureBasis.js';
import { StatusLists1765100000000 } from './1765100000000-StatusLists.js';
import { MutualTls1765150000000 } from './1765150000000-MutualTls.js';
import { DynamicRegistration1765200000000 } from './1765200000000-DynamicRegistration.js';
import { AdministratorCeilings1765300000000 } from './1765300000000-AdministratorCeilings.js';
import { InitialAccessTokenSearch1765210000000 } from './1765210000000-InitialAccessTokenSearch.js';
import { TlsClientAuthIssuerDn1765310000000 } from './1765310000000-TlsClientAuthIssuerDn.js';
import { TrustCommunities1765400000000 } from './1765400000000-TrustCommunities.js';
import { UdapClients1765410000000 } from './1765410000000-UdapClients.js';
import { TrustCommunityServerCertificates1765420000000 } from './1765420000000-TrustCommunityServerCertificates.js';
import { TokenExchange1765430000000 } from './1765430000000-TokenExchange.js';
import { PurposesOfUse1765440000000 } from './1765440000000-PurposesOfUse.js';
import { RevocationHorizon1765450000000 } from './1765450000000-RevocationHorizon.js';

/** Listed as classes, not globs, so the same list works in Jest, in dist/ and from the CLI. */
export const MIGRATIONS = [
  Initial1763800000000,
  Tickets1763900000000,
  TicketIndexes1764000000000,
  TokenLifecycle1764100000000,
  ProofOfPossession1764200000000,
  DataSources1764300000000,
  AdminFilterIndexes1764500000000,
  SmartBackendServices1764600000000,
  SmartFilterIndexes1764650000000,
  Disclosures1764700000000,
  Uma1764800000000,
  PendingWithdrawals1764900000000,
  SharedDisclosureBasis1765000000000,
  StatusLists1765100000000,
  MutualTls1765150000000,
  DynamicRegistration1765200000000,
  InitialAccessTokenSearch1765210000000,
  AdministratorCeilings1765300000000,
  TlsClientAuthIssuerDn1765310000000,
  TrustCommunities1765400000000,
  UdapClients1765410000000,
  TrustCommunityServerCertificates1765420000000,
  TokenExchange1765430000000,
  PurposesOfUse1765440000000,
  RevocationHorizon1765450000000,
];
