/** A permission of an RPT, in UMA's shape (docs/guides/uma.md). */
export type RptPermission = { resource_id: string; resource_scopes: string[]; exp: number };

/**
 * What an RPT carries beyond an access token's usual claims: its audience (the registering
 * client's data sources) and its permissions, whose `exp` is the token's.
 */
export type RptClaims = { aud: string | string[]; permissions(exp: number): RptPermission[] };

/**
 * An RPT is told from other access tokens by its permissions: UMA's shape names a registered
 * resource (`resource_id`) and no `resource_type`, which the consent-ticket permissions of
 * client-credentials tokens always carry.
 */
export function isRpt(permissions: unknown): boolean {
  return (
    Array.isArray(permissions) &&
    permissions.length > 0 &&
    permissions.every((entry) => typeof entry === 'object' && entry !== null && !('resource_type' in entry))
  );
}
