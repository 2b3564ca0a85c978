import request from 'supertest';
import type { TestApp } from './test-app.js';

export const JSON_PATCH = 'application/vnd.api+json; ext=jsonpatch';
export const JSON_API = 'application/vnd.api+json';

/** `PATCH {admin_url}` with the headers of the seed document. */
export function patchAdmin(server: TestApp, operations: unknown) {
  return request(server.adminUrl)
    .patch('/admin')
    .set('Authorization', server.adminToken)
    .set('ApiVersion', 'v1.0')
    .set('Accept-Language', 'en')
    .set('Content-Type', JSON_PATCH)
    .send(typeof operations === 'string' ? operations : JSON.stringify(operations));
}

export function getAdmin(server: TestApp, path: string) {
  return request(server.adminUrl).get(path).set('Authorization', server.adminToken);
}

export function add(type: string, value: Record<string, unknown>) {
  return { op: 'add', path: `/${type}`, value: { type, ...value } };
}

export const ref = (type: string, id: number | string) => ({ data: { type, id } });

/** A JSON Patch operation removing a record. */
export const remove = (type: string, id: number) => ({ op: 'remove', path: `/${type}/${id}` });

const TABLES = [
  'client',
  'client_metadata',
  'redirect_uri',
  'resource_definition',
  'scope',
  'purpose',
  'capability_ticket',
  'requested_resource',
  'requested_resource_scopes',
  'requested_resources_capability_tickets',
  'audit_event',
  'data_source',
  'data_source_resource_definitions',
];

/** Row counts of every administered table, to prove a refused request changed nothing. */
export async function rowCounts(server: TestApp): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const [{ count }] = await server.dataSource.query<{ count: number }[]>(`SELECT count(*)::int AS count FROM "${table}"`);
    counts[table] = count;
  }
  return counts;
}

let next = 100_000 + Math.floor(Math.random() * 1_000_000) * 100;
/** Caller-chosen ids no other test uses. */
export function freshIds(count: number): number[] {
  const ids = Array.from({ length: count }, (_, index) => next + index);
  next += count + 10;
  return ids;
}
