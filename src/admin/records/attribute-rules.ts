import { CONTROL_CHARACTER, CONTROL_CHARACTER_IN_TEXT } from '../../common/control-characters.js';
import { malformed, ruleBroken } from '../json-api/admin-error.js';
import { isAbsoluteUri } from '../../oauth/resource-indicator.js';
import { escape } from '../json-api/resource-object.js';

export type AttributeKind = 'string' | 'text' | 'positive-integer' | 'string-array' | 'absolute-uri' | 'boolean';

/** How an attribute is read from JSON and stored in a column. */
export type AttributeSpec = {
  name: string;
  column: string;
  kind: AttributeKind;
  required: boolean;
  nullable?: boolean;
  maxLength?: number;
  /** Accepted on writes, never read back (a secret): neither filterable nor sortable. */
  writeOnly?: boolean;
  /** The only values allowed (another string is a 422). */
  values?: readonly string[];
  /** The largest value of a positive integer (more is a 422). */
  max?: number;
  /** A string must match it, else a 422 saying `patternRule`. */
  pattern?: RegExp;
  patternRule?: string;
  /** Each item of a string array must pass it, else a 422 saying `itemRule`; repeated items are kept once. */
  item?: (value: string) => boolean;
  itemRule?: string;
};

const MAX_INT = 2_147_483_647;

/**
 * Validates one attribute value before it reaches the database: a wrong JSON type, a NUL or
 * control character or an over-long string is a 400 naming the member.
 */
export function checkAttribute(spec: AttributeSpec, value: unknown): unknown {
  const pointer = `/value/attributes/${escape(spec.name)}`;
  if (value === null) {
    if (spec.nullable) return null;
    throw malformed(`attribute "${spec.name}" must not be null`, pointer);
  }
  switch (spec.kind) {
    case 'boolean':
      if (typeof value !== 'boolean') throw malformed(`attribute "${spec.name}" must be true or false`, pointer);
      return value;
    case 'positive-integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        throw malformed(`attribute "${spec.name}" must be an integer`, pointer);
      }
      if (value < 1 || value > (spec.max ?? MAX_INT)) throw ruleBroken(`attribute "${spec.name}" must be from 1 to ${spec.max ?? MAX_INT}`, pointer);
      return value;
    case 'string-array':
      if (!Array.isArray(value) || value.length > 100) throw malformed(`attribute "${spec.name}" must be an array of at most 100 strings`, pointer);
      return checkItems(
        spec,
        value.map((item) => checkString(spec, item, pointer)),
        pointer,
      );
    case 'absolute-uri': {
      const uri = checkString(spec, value, pointer);
      if (!isAbsoluteUri(uri)) throw ruleBroken(`attribute "${spec.name}" must be an absolute URI without a fragment`, pointer);
      return uri;
    }
    default: {
      const text = checkString(spec, value, pointer);
      if (spec.values && !spec.values.includes(text)) throw ruleBroken(`attribute "${spec.name}" must be one of: ${spec.values.join(', ')}`, pointer);
      if (spec.pattern && !spec.pattern.test(text)) throw ruleBroken(`attribute "${spec.name}" ${spec.patternRule ?? 'is malformed'}`, pointer);
      return text;
    }
  }
}

function checkItems(spec: AttributeSpec, items: string[], pointer: string): string[] {
  if (!spec.item) return items;
  for (const [index, item] of items.entries()) {
    if (!spec.item(item)) throw ruleBroken(`attribute "${spec.name}": item ${index} ${spec.itemRule ?? 'is malformed'}`, `${pointer}/${index}`);
  }
  return [...new Set(items)];
}

function checkString(spec: AttributeSpec, value: unknown, pointer: string): string {
  if (typeof value !== 'string') throw malformed(`attribute "${spec.name}" must be a string`, pointer);
  const maxLength = spec.maxLength ?? 255;
  if (value.length > maxLength) throw malformed(`attribute "${spec.name}" is longer than ${maxLength} characters`, pointer);
  // Text may carry line breaks; nothing may carry NUL or other control characters.
  const forbidden = spec.kind === 'text' ? CONTROL_CHARACTER_IN_TEXT : CONTROL_CHARACTER;
  if (forbidden.test(value)) throw malformed(`attribute "${spec.name}" contains a control character`, pointer);
  if (spec.required && value.trim() === '') throw malformed(`attribute "${spec.name}" must not be empty`, pointer);
  return value;
}

/** Every attribute named in the input is known, and (for a create) every required one is there. */
export function readAttributes(specs: AttributeSpec[], attributes: Map<string, unknown>, creating: boolean): Map<AttributeSpec, unknown> {
  const values = new Map<AttributeSpec, unknown>();
  for (const [name, value] of attributes) {
    const spec = specs.find((candidate) => candidate.name === name);
    if (!spec) throw malformed(`unknown attribute "${name}"`, `/value/attributes/${escape(name)}`);
    values.set(spec, checkAttribute(spec, value));
  }
  if (creating) {
    for (const spec of specs) {
      if (spec.required && !values.has(spec)) throw malformed(`attribute "${spec.name}" is required`, '/value/attributes');
    }
  }
  return values;
}
