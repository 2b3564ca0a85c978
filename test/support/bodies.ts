// supertest types every response body as `any`; tests name the shape they expect instead, so the
// type checker (and typescript-eslint's no-unsafe-* rules) see what a test reads.

/** The body of a response, as the shape the test expects. */
export function bodyOf<T>(response: { body: unknown }): T {
  return response.body as T;
}

export type TokenBody = { access_token: string; token_type: string; expires_in: number; scope?: string; refresh_token?: string };
export type OAuthErrorBody = { error: string; error_description: string };
export type IntrospectionBody = { active: boolean } & Record<string, unknown>;

export type ResourceIdentifier = { type: string; id: string };
export type JsonApiResource = {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: ResourceIdentifier | ResourceIdentifier[] | null }>;
  meta?: Record<string, unknown>;
};
export type JsonApiError = { status: string; code?: string; title?: string; detail?: string; source?: { pointer?: string; parameter?: string } };
export type JsonApiDocument<D = JsonApiResource | JsonApiResource[] | null> = {
  data: D;
  included?: JsonApiResource[];
  meta?: Record<string, unknown>;
  links?: Record<string, string | null>;
};
export type JsonApiErrors = { errors: JsonApiError[] };
/** A JSON Patch response: one document (or error list) per operation. */
export type PatchResults = ({ data: JsonApiResource | null } & Partial<JsonApiErrors>)[];
