import type { EntityManager } from 'typeorm';
import { isForeignKeyViolation, isUniqueViolation } from '../../common/database-errors.js';
import { conflict, malformed, notFound } from '../json-api/admin-error.js';
import { escape, type ResourceInput, type ResourceObject } from '../json-api/resource-object.js';
import { readAttributes, type AttributeSpec } from './attribute-rules.js';
import { attributeFields, idField, selectPage, type Collection, type ListQuery } from './collection.js';
import { allocateId } from '../../database/record-ids.js';
import { deleteConsentRow, insertConsentRow, updateConsentRow, type ConsentRecordTable } from '../../tickets/consent-record-rows.js';
import type { RecordHandler, Snapshot, Written } from './record-handler.js';

/** A to-one relationship; an `optional` one may be absent on create and set to `{"data": null}`. */
export type RelationshipSpec = { name: string; type: string; table: string; column: string; optional?: boolean };

/** A consistency rule (docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent), run after a write of this type. */
export type Rule = (manager: EntityManager, id: number) => Promise<void>;

export type TableSpec = {
  type: string;
  /** A consent record's table: tickets/ owns and writes it. */
  table: ConsentRecordTable;
  attributes: AttributeSpec[];
  relationships: RelationshipSpec[];
  rules?: Rule[];
  /** Unique constraint name → the attribute (or relationship) it concerns, to answer 409 naming it. */
  uniques?: Record<string, string>;
  /** The attributes `filter[search]` matches by prefix (each needs a `lower(left(x, 100))` index). */
  search?: string[];
};

type Row = Record<string, unknown> & { id: number; version: number; date_created: Date; last_updated: Date };

/** A JSON:API type stored in one table: plain columns and to-one foreign keys. */
export class TableRecordHandler implements RecordHandler {
  readonly type: string;
  readonly relationships: Record<string, string>;
  readonly collection: Collection;

  constructor(private readonly spec: TableSpec) {
    this.type = spec.type;
    this.relationships = Object.fromEntries(spec.relationships.map((relationship) => [relationship.name, relationship.type]));
    const column = (name: string) => `t."${name}"`;
    this.collection = {
      from: `FROM "${spec.table}" t`,
      fields: [
        idField('id', 't.id'),
        ...attributeFields(spec.attributes, (attribute) => column(attribute.column)),
        ...spec.relationships.map((relationship) => idField(relationship.name, column(relationship.column))),
      ],
      search: (spec.search ?? []).map((name) => column(spec.attributes.find((attribute) => attribute.name === name)!.column)),
    };
  }

  async create(manager: EntityManager, input: ResourceInput): Promise<Written> {
    const columns = await this.columnsOf(manager, input, true);
    const id = input.id ?? (await allocateId(manager, this.spec.table));
    if (input.id !== undefined) await this.assertFree(manager, input.id);
    columns.set('id', id);
    await this.write(insertConsentRow(manager, this.spec.table, columns));
    await this.checkRules(manager, id);
    return { id };
  }

  async update(manager: EntityManager, id: number, input: ResourceInput): Promise<Written> {
    const columns = await this.columnsOf(manager, input, false);
    if (!(await this.write(updateConsentRow(manager, this.spec.table, id, columns)))) throw notFound(`no ${this.type} with id ${id}`, '/path');
    await this.checkRules(manager, id);
    return { id };
  }

  async remove(manager: EntityManager, id: number): Promise<void> {
    const removed = await deleteConsentRow(manager, this.spec.table, id).catch((error: unknown) => {
      if (isForeignKeyViolation(error)) throw conflict(`${this.type} ${id} is still referenced by other records`, '/path');
      throw error;
    });
    if (!removed) throw notFound(`no ${this.type} with id ${id}`, '/path');
  }

  async find(manager: EntityManager, ids: number[]): Promise<ResourceObject[]> {
    if (ids.length === 0) return [];
    const rows: Row[] = await manager.query(`SELECT * FROM "${this.spec.table}" WHERE id = ANY($1)`, [ids]);
    return rows.map((row) => this.serialise(row));
  }

  async list(manager: EntityManager, query: ListQuery): Promise<{ records: ResourceObject[]; total: number }> {
    const { rows, total } = await selectPage<Row>(manager, this.collection, 'SELECT t.*', query);
    return { records: rows.map((row) => this.serialise(row)), total };
  }

  async snapshot(manager: EntityManager, id: number): Promise<Snapshot | null> {
    const [record] = await this.find(manager, [id]);
    if (!record) return null;
    const related = Object.fromEntries(Object.entries(record.relationships ?? {}).map(([name, value]) => [name, value.data?.id ?? null]));
    return { ...record.attributes, ...related };
  }

  private serialise(row: Row): ResourceObject {
    return {
      type: this.type,
      id: String(row.id),
      attributes: Object.fromEntries(this.spec.attributes.map((spec) => [spec.name, row[spec.column] ?? null])),
      relationships: Object.fromEntries(
        this.spec.relationships.map((relationship) => [
          relationship.name,
          { data: row[relationship.column] == null ? null : { type: relationship.type, id: String(row[relationship.column]) } },
        ]),
      ),
      meta: { version: row.version, dateCreated: row.date_created, lastUpdated: row.last_updated },
    };
  }

  /** Column values from the input: attributes validated, related records checked to exist. */
  private async columnsOf(manager: EntityManager, input: ResourceInput, creating: boolean): Promise<Map<string, unknown>> {
    const columns = new Map<string, unknown>();
    for (const [spec, value] of readAttributes(this.spec.attributes, input.attributes, creating)) columns.set(spec.column, value);
    for (const [name, target] of input.relationships) {
      const spec = this.spec.relationships.find((candidate) => candidate.name === name);
      const pointer = `/value/relationships/${escape(name)}`;
      if (!spec) throw malformed(`unknown relationship "${name}"`, pointer);
      if (target === null) {
        if (!spec.optional) throw malformed(`relationship "${name}" must not be null`, `${pointer}/data`);
        columns.set(spec.column, null);
        continue;
      }
      if (target.type !== spec.type) throw conflict(`relationship "${name}" must point to a ${spec.type}, not a ${target.type}`, `${pointer}/data/type`);
      const found: unknown[] = await manager.query(`SELECT 1 FROM "${spec.table}" WHERE id = $1 FOR KEY SHARE`, [target.id]);
      if (found.length === 0) throw notFound(`no ${spec.type} with id ${target.id}`, pointer);
      columns.set(spec.column, target.id);
    }
    if (creating) {
      for (const spec of this.spec.relationships) {
        if (!spec.optional && !input.relationships.has(spec.name)) throw malformed(`relationship "${spec.name}" is required`, '/value/relationships');
      }
    }
    return columns;
  }

  private async assertFree(manager: EntityManager, id: number): Promise<void> {
    const taken: unknown[] = await manager.query(`SELECT 1 FROM "${this.spec.table}" WHERE id = $1`, [id]);
    if (taken.length > 0) throw conflict(`${this.type} ${id} already exists`, '/value/id');
  }

  /** A write's database refusals as JSON:API errors. */
  private async write<T>(written: Promise<T>): Promise<T> {
    return written.catch((error: unknown) => {
      if (isUniqueViolation(error)) {
        const { constraint } = error as { constraint?: string };
        // Two requests adding the same id at once: the primary key decides.
        const member = constraint ? this.spec.uniques?.[constraint] : undefined;
        if (member && this.relationships[member]) {
          throw conflict(`another ${this.type} already links these records`, `/value/relationships/${member}`);
        }
        if (member) throw conflict(`another ${this.type} already has this ${member}`, `/value/attributes/${member}`);
        throw conflict(`this ${this.type} already exists`, '/value/id');
      }
      if (isForeignKeyViolation(error)) throw notFound('a related record does not exist', '/value/relationships');
      throw error;
    });
  }

  private async checkRules(manager: EntityManager, id: number): Promise<void> {
    for (const rule of this.spec.rules ?? []) await rule(manager, id);
  }
}
