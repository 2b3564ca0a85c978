// The JSON the admin interface speaks, typed once: resource objects and error objects are the
// server's own types (docs/reference/admin-interface.md), the rest is what the console reads of them.
import type { ErrorObject } from '../../../src/admin/json-api/admin-error.js';
import type { ResourceObject } from '../../../src/admin/json-api/resource-object.js';

export type { ErrorObject, ResourceObject };

/** `GET /admin/<type>`: one page of records. */
export type ListDocument = {
  data: ResourceObject[];
  included?: ResourceObject[];
  meta: { total: number; page: { number: number; size: number } };
};

/** One entry of a JSON Patch success: the record written (null for remove), once a generated secret or initial access token. */
export type OperationResult = { data: ResourceObject | null; meta?: { clientSecret?: string; token?: string } };

/** A relationship to a record by id, or (inside one PATCH request) by local id. */
export type Reference = { type: string; id: string } | { type: string; lid: string };

export type Operation =
  | {
      op: 'add';
      path: string;
      value: { type: string; lid?: string; attributes: Record<string, unknown>; relationships?: Record<string, { data: Reference | null }> };
    }
  | {
      op: 'replace';
      path: string;
      value: { type: string; id: string; attributes?: Record<string, unknown>; relationships?: Record<string, { data: Reference | null }> };
    }
  | { op: 'remove'; path: string };

export const add = (type: string, attributes: Record<string, unknown>, relationships?: Record<string, Reference | null>, lid?: string): Operation => ({
  op: 'add',
  path: `/${type}`,
  value: { type, ...(lid ? { lid } : {}), attributes, ...(relationships ? { relationships: wrap(relationships) } : {}) },
});

export const replace = (type: string, id: string, attributes: Record<string, unknown>, relationships?: Record<string, Reference | null>): Operation => ({
  op: 'replace',
  path: `/${type}/${id}`,
  value: { type, id, attributes, ...(relationships ? { relationships: wrap(relationships) } : {}) },
});

export const remove = (type: string, id: string): Operation => ({ op: 'remove', path: `/${type}/${id}` });

function wrap(relationships: Record<string, Reference | null>): Record<string, { data: Reference | null }> {
  return Object.fromEntries(Object.entries(relationships).map(([name, data]) => [name, { data }]));
}

/** The id a relationship of a record points at, if any. */
export function related(record: ResourceObject, name: string): string | undefined {
  return record.relationships?.[name]?.data?.id;
}

export function text(record: ResourceObject, name: string): string {
  const value = record.attributes[name];
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  // Every attribute the console shows as text is a string or a number; anything else as JSON.
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}
