import { malformed } from './admin-error.js';

/** A JSON:API resource object as the server writes it. */
export type ResourceObject = {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string } | null }>;
  meta?: Record<string, unknown>;
};

/** A resource object as a client sent it, checked for shape only. */
export type ResourceInput = {
  type: string;
  id?: number;
  attributes: Map<string, unknown>;
  /** `null` where the input unset a to-one relationship (`{"data": null}`). */
  relationships: Map<string, { type: string; id: number } | null>;
};

const MAX_ID = 2_147_483_647;

/** Ids are positive 32-bit integers, written as numbers or digit strings. */
export function parseId(value: unknown, pointer: string): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[1-9]\d{0,9}$/.test(text) || Number(text) > MAX_ID) {
    throw malformed('an id must be a positive 32-bit integer, as a number or a string of digits', pointer);
  }
  return Number(text);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the members of a resource object (not their meaning); pointers are relative to `base`. */
export function parseResourceInput(value: unknown, base: string): ResourceInput {
  if (!isObject(value)) throw malformed('a resource object must be a JSON object', base);
  for (const member of Object.keys(value)) {
    if (!['type', 'id', 'attributes', 'relationships', 'meta', 'links', 'lid'].includes(member)) {
      throw malformed(`unknown member "${member}" in the resource object`, `${base}/${escape(member)}`);
    }
  }
  if (typeof value.type !== 'string') throw malformed('the resource object needs a string "type"', `${base}/type`);
  const id = value.id === undefined ? undefined : parseId(value.id, `${base}/id`);
  const attributes = new Map<string, unknown>();
  if (value.attributes !== undefined) {
    if (!isObject(value.attributes)) throw malformed('"attributes" must be an object', `${base}/attributes`);
    for (const [name, member] of Object.entries(value.attributes)) attributes.set(name, member);
  }
  const relationships = new Map<string, { type: string; id: number } | null>();
  if (value.relationships !== undefined) {
    if (!isObject(value.relationships)) throw malformed('"relationships" must be an object', `${base}/relationships`);
    for (const [name, member] of Object.entries(value.relationships)) {
      const pointer = `${base}/relationships/${escape(name)}`;
      const data = isObject(member) ? member.data : undefined;
      if (data === null) {
        relationships.set(name, null);
        continue;
      }
      if (!isObject(data) || typeof data.type !== 'string') {
        throw malformed(`relationship "${name}" must be {"data": {"type", "id"}}`, pointer);
      }
      relationships.set(name, { type: data.type, id: parseId(data.id, `${pointer}/data/id`) });
    }
  }
  return { type: value.type, id, attributes, relationships };
}

/** RFC 6901 escaping of a member name inside a JSON pointer. */
export function escape(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}
