import type { ClientAuthenticationType } from './client-metadata.entity.js';

/** What the token endpoint needs to know of a client, cached in memory. */
export type ClientRecord = {
  id: number;
  clientId: string;
  clientName: string;
  authenticationType: ClientAuthenticationType;
  clientType: string;
  grantTypes: ReadonlySet<string>;
  allowedScopes: ReadonlySet<string>;
  secretHash: string;
};

export function splitSpaced(value: string): Set<string> {
  return new Set(value.split(' ').filter(Boolean));
}
