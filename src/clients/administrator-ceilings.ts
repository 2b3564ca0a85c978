/**
 * What an administrator set on a dynamically registered client since it registered (admin
 * interface, CLI, console): each value is a ceiling of the client's own RFC 7592 updates, so an
 * administrator's restriction outlives them (docs/reference/registration-endpoint.md#an-administrators-changes-are-ceilings).
 */
export type AdministratorCeilings = {
  /** allowedScopes: an update may ask these scopes or fewer. */
  scope?: string;
  /** grantTypes: an update may ask these grant types or fewer. */
  grantTypes?: string;
  /** accessTokenLifetime: what every update keeps (null: the server's default). */
  accessTokenLifetime?: number | null;
  /** dpopBoundAccessTokens set to true: an update keeps it (an omitted member means true). */
  dpopBound?: boolean;
  /** tlsClientCertificateBoundAccessTokens set to true: likewise. */
  certificateBound?: boolean;
};

/** The administrator's values among an admin write's attributes (null: none of them). */
export type AdministratorWrite = {
  allowedScopes?: string;
  grantTypes?: string;
  accessTokenLifetime?: number | null;
  dpopBound?: boolean;
  certificateBound?: boolean;
};

/**
 * The ceilings after an administrator's write of a client: the earlier ones, with every attribute
 * this write named replaced by its new value (a binding set to false lifts its requirement).
 * Undefined when the write named none of them.
 */
export function withAdministratorWrite(earlier: AdministratorCeilings | null, written: AdministratorWrite): AdministratorCeilings | undefined {
  const next: AdministratorCeilings = { ...(earlier ?? {}) };
  let changed = false;
  if (written.allowedScopes !== undefined) [next.scope, changed] = [written.allowedScopes, true];
  if (written.grantTypes !== undefined) [next.grantTypes, changed] = [written.grantTypes, true];
  if (written.accessTokenLifetime !== undefined) [next.accessTokenLifetime, changed] = [written.accessTokenLifetime, true];
  if (written.dpopBound !== undefined) [next.dpopBound, changed] = [written.dpopBound, true];
  if (written.certificateBound !== undefined) [next.certificateBound, changed] = [written.certificateBound, true];
  return changed ? next : undefined;
}
