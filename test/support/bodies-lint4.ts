// More response and token shapes for tests (see bodies.ts: supertest types every body as `any`).
import type { JWK } from 'jose';
import { bodyOf } from './bodies.js';

/** A JSON Patch response whose first operation added a client: the secret issued once. */
export type IssuedSecretResults = { meta: { clientSecret: string } }[];
export type JwksBody = { keys: JWK[] };
/** The claims of an access token the server issued, as the tests read them (unverified). */
export type AccessTokenClaims = {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  jti: string;
  scope?: string;
  permissions?: { resource_id: string; resource_scopes: string[]; exp?: number }[];
  cnf?: { jkt: string };
} & Record<string, unknown>;

/** The client secret issued by the first operation of a JSON Patch that added a client. */
export function clientSecretOf(response: { body: unknown }): string {
  return bodyOf<IssuedSecretResults>(response)[0].meta.clientSecret;
}

/** The payload of a compact JWT the server issued, unverified. */
export function accessTokenClaims(jwt: string): AccessTokenClaims {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as AccessTokenClaims;
}

/** What `client create --json` prints: the client id, and the secret a secret client gets once. */
export type CliClientJson = { client_id: string; client_secret: string };
