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

/**
 * The ceilings after an administrator's write of a client: the earlier ones, with every value
 * this write changed (the members of `changed` that are not undefined) replaced; a binding set to
 * false lifts its requirement. Undefined when the write changed none of them.
 */
export function withAdministratorWrite(earlier: AdministratorCeilings | null, changed: AdministratorCeilings): AdministratorCeilings | undefined {
  const changes = Object.entries(changed).filter(([, value]) => value !== undefined);
  return changes.length === 0 ? undefined : { ...earlier, ...(Object.fromEntries(changes) as AdministratorCeilings) };
}
