import type { EntityManager } from 'typeorm';
import type { ResourceInput, ResourceObject } from '../json-api/resource-object.js';
import type { Collection, ListQuery } from './collection.js';

/**
 * What a write returns: the record's id and meta shown once (a generated client secret), and a
 * check that runs once every operation of the request is applied, before the commit (a rule about
 * records a later operation of the same request may still add: a client's resource scopes and
 * the scope records they name). The write's audit event is AdminRecordsService's to record, for every type.
 */
export type Written = { id: number; meta?: Record<string, unknown>; atEnd?: (manager: EntityManager) => Promise<void> };

/** Attribute values as stored for the audit trail: never a secret. */
export type Snapshot = Record<string, unknown>;

/**
 * One JSON:API type of the admin interface. Every method runs inside the request's transaction
 * and throws AdminError (with a pointer relative to the operation's `value`) for a refusal.
 */
export interface RecordHandler {
  readonly type: string;
  /** Relationship name → related type, for `include`. */
  readonly relationships: Readonly<Record<string, string>>;
  create(manager: EntityManager, input: ResourceInput): Promise<Written>;
  /** `actor`: who writes (the audit trail's actor: `admin`, `cli:…`, `dcr:rat:…`). */
  update(manager: EntityManager, id: number, input: ResourceInput, actor: string): Promise<Written>;
  remove(manager: EntityManager, id: number): Promise<void>;
  /** The records with these ids, in no particular order; missing ones are left out. */
  find(manager: EntityManager, ids: number[]): Promise<ResourceObject[]>;
  /** The members `filter[…]` and `sort` accept, and the SQL behind them (docs/reference/admin-filters.md). */
  readonly collection: Collection;
  /** One page of the records that pass the query's filters, in its order; a bad member is a 400. */
  list(manager: EntityManager, query: ListQuery): Promise<{ records: ResourceObject[]; total: number }>;
  snapshot(manager: EntityManager, id: number): Promise<Snapshot | null>;
}
