import { malformed } from './admin-error.js';
import { parseId } from './resource-object.js';

/** One JSON Patch operation of the jsonpatch extension, checked for shape. */
export type Operation =
  { op: 'add'; type: string; value: unknown } | { op: 'replace'; type: string; id: number; value: unknown } | { op: 'remove'; type: string; id: number };

/**
 * Reads `{op, path, value}`: `add` on `/<type>`, `replace` and `remove` on `/<type>/<id>`, for a
 * type in `types`. Throws a 400 AdminError whose pointer is relative to the operation.
 */
export function parsePatchOperation(value: unknown, types: { has(type: string): boolean }): Operation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed('an operation must be an object', '');
  const { op, path } = value as Record<string, unknown>;
  const unknown = Object.keys(value).find((member) => !['op', 'path', 'value'].includes(member));
  if (unknown !== undefined)
    throw malformed(`unknown member "${unknown.slice(0, 100)}" in the operation`, `/${unknown.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  if (op !== 'add' && op !== 'replace' && op !== 'remove') throw malformed('op must be add, replace or remove', '/op');
  if (typeof path !== 'string') throw malformed('path must be a string', '/path');
  const match = /^\/([a-z-]+)(?:\/([^/]+))?$/.exec(path);
  if (!match || !types.has(match[1])) throw malformed(`path "${path.slice(0, 100)}" names no known type`, '/path');
  const type = match[1];
  if (op === 'add') {
    if (match[2] !== undefined) throw malformed('add takes the path /<type>; put the id in the value', '/path');
    if (!('value' in value)) throw malformed('add needs a value', '');
    return { op, type, value: value.value };
  }
  if (match[2] === undefined) throw malformed(`${op} takes the path /<type>/<id>`, '/path');
  const id = parseId(match[2], '/path');
  if (op === 'remove') return { op, type, id };
  if (!('value' in value)) throw malformed('replace needs a value', '');
  return { op, type, id, value: value.value };
}
