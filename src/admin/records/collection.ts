import type { EntityManager } from 'typeorm';
import { CONTROL_CHARACTER_IN_TEXT } from '../../common/control-characters.js';
import { malformed } from '../json-api/admin-error.js';
import type { AttributeSpec } from './attribute-rules.js';

/**
 * How a collection `GET /admin/<type>` is filtered, searched and sorted (docs/reference/admin-filters.md).
 * Each type describes its members once; everything below is generic, so an attribute added to a
 * type's list becomes filterable and sortable without more code (and needs an index: the
 * admin-filter-indexes e2e test says which).
 */

/** `text` compares with `=`; `long-text` too, but is indexed by hash (too long for a btree). */
export type FieldKind = 'text' | 'long-text' | 'integer' | 'boolean' | 'id' | 'timestamp';

/** One filterable and/or sortable member: its name on the wire and its SQL expression. */
export type Field = { name: string; expression: string; kind: FieldKind; filter: boolean; sort: boolean };

export type Collection = {
  /** `FROM …` with the alias the expressions use. */
  from: string;
  fields: Field[];
  /** The expressions `filter[search]` matches by prefix, case-insensitively (indexed as `lower(left(x, 100))`). */
  search: string[];
};

export type ListQuery = {
  offset: number;
  limit: number;
  /** Member name → raw value from the query string. */
  filters: Map<string, string>;
  /** Member names, a leading `-` for descending. */
  sort: string[];
};

export type Statement = { sql: string; parameters: unknown[] };

export const SEARCH_LENGTH = 100;
const MAX_ID = 2_147_483_647;
const MAX_VALUE_LENGTH = 65_536;

/** The fields of plain attributes: every one but arrays and write-only secrets. */
export function attributeFields(specs: AttributeSpec[], expressionOf: (spec: AttributeSpec) => string): Field[] {
  return specs
    .filter((spec) => spec.kind !== 'string-array' && !spec.writeOnly)
    .map((spec) => ({ name: spec.name, expression: expressionOf(spec), kind: kindOf(spec), filter: true, sort: true }));
}

function kindOf(spec: AttributeSpec): FieldKind {
  if (spec.kind === 'boolean') return 'boolean';
  if (spec.kind === 'positive-integer') return 'integer';
  return spec.kind === 'text' || (spec.maxLength ?? 255) > 255 ? 'long-text' : 'text';
}

/** `id` and each to-one relationship: filterable by one id or a comma-separated list of ids. */
export function idField(name: string, expression: string): Field {
  return { name, expression, kind: 'id', filter: true, sort: name === 'id' };
}

/**
 * The page's rows and the total count, as `list` runs them (the e2e tests EXPLAIN them too).
 * Every member name and value is checked first: a bad one is a 400 naming it, before any SQL runs.
 */
export function listStatements(collection: Collection, select: string, query: ListQuery): { rows: Statement; count: Statement } {
  const where = whereOf(collection, query.filters);
  const order = orderOf(collection, query.sort);
  const last = where.parameters.length;
  return {
    rows: {
      sql: `${select} ${collection.from}${where.sql} ORDER BY ${order} LIMIT $${last + 1} OFFSET $${last + 2}`,
      parameters: [...where.parameters, query.limit, query.offset],
    },
    count: { sql: `SELECT count(*)::int AS total ${collection.from}${where.sql}`, parameters: where.parameters },
  };
}

/** Runs both statements of one page. */
export async function selectPage<Row>(
  manager: EntityManager,
  collection: Collection,
  select: string,
  query: ListQuery,
): Promise<{ rows: Row[]; total: number }> {
  const { rows, count } = listStatements(collection, select, query);
  const [found, [{ total }]] = await Promise.all([
    manager.query<Row[]>(rows.sql, rows.parameters),
    manager.query<{ total: number }[]>(count.sql, count.parameters),
  ]);
  return { rows: found, total };
}

function whereOf(collection: Collection, filters: Map<string, string>): Statement {
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  for (const [name, raw] of filters) {
    const parameter = `filter[${name}]`;
    if (name === 'search') {
      if (collection.search.length === 0) throw malformed(`unknown filter member "search": this type has no search`, undefined, parameter);
      const pattern = searchPattern(raw, parameter);
      if (pattern === undefined) continue;
      parameters.push(pattern);
      conditions.push(
        `(${collection.search.map((expression) => `lower(left(${expression}, ${SEARCH_LENGTH})) LIKE lower($${parameters.length})`).join(' OR ')})`,
      );
      continue;
    }
    const field = collection.fields.find((candidate) => candidate.name === name && candidate.filter);
    if (!field) throw malformed(`unknown filter member "${name}"`, undefined, parameter);
    parameters.push(valueOf(field, raw, parameter));
    conditions.push(field.kind === 'id' ? `${field.expression} = ANY($${parameters.length})` : `${field.expression} = $${parameters.length}`);
  }
  return { sql: conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`, parameters };
}

function orderOf(collection: Collection, sort: string[]): string {
  const keys = sort.map((key) => {
    const descending = key.startsWith('-');
    const name = descending ? key.slice(1) : key;
    const field = collection.fields.find((candidate) => candidate.name === name && candidate.sort);
    if (!field) throw malformed(`unknown sort member "${name}"`, undefined, 'sort');
    return { field, descending };
  });
  const id = collection.fields.find((field) => field.name === 'id')!;
  // The id last keeps the order total, so pages never repeat or skip a record.
  if (!keys.some((key) => key.field === id)) keys.push({ field: id, descending: false });
  return keys.map((key) => `${key.field.expression}${key.descending ? ' DESC' : ''}`).join(', ');
}

function valueOf(field: Field, raw: string, parameter: string): unknown {
  switch (field.kind) {
    case 'id': {
      const ids = raw.split(',');
      if (ids.length > 100 || !ids.every(isId))
        throw malformed(`${parameter} must be an id (a positive 32-bit integer) or up to 100 of them, comma-separated`, undefined, parameter);
      return ids.map(Number);
    }
    case 'integer':
      if (!isId(raw)) throw malformed(`${parameter} must be a positive 32-bit integer`, undefined, parameter);
      return Number(raw);
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw malformed(`${parameter} must be true or false`, undefined, parameter);
      return raw === 'true';
    default:
      return checkText(raw, parameter);
  }
}

function isId(text: string): boolean {
  return /^[1-9]\d{0,9}$/.test(text) && Number(text) <= MAX_ID;
}

function checkText(raw: string, parameter: string): string {
  // PostgreSQL cannot hold a NUL: it must be refused here, not by the database.
  if (CONTROL_CHARACTER_IN_TEXT.test(raw)) throw malformed(`${parameter} contains a control character`, undefined, parameter);
  if (raw.length > MAX_VALUE_LENGTH) throw malformed(`${parameter} is longer than ${MAX_VALUE_LENGTH} characters`, undefined, parameter);
  return raw;
}

/** `abc` → `abc%`, with LIKE's own characters escaped; undefined for an empty search (everything). */
function searchPattern(raw: string, parameter: string): string | undefined {
  const text = checkText(raw, parameter);
  if (text.length > SEARCH_LENGTH) throw malformed(`${parameter} is longer than ${SEARCH_LENGTH} characters`, undefined, parameter);
  if (text === '') return undefined;
  return `${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}
