import type { EntityManager } from 'typeorm';
import { AdminError } from '../json-api/admin-error.js';
import type { ResourceObject } from '../json-api/resource-object.js';
import type { RecordHandler, Snapshot, Written } from './record-handler.js';
import { idField, selectPage, type Collection, type ListQuery } from './collection.js';

type Row = {
  id: number;
  occurred_at: Date;
  actor: string;
  operation: string;
  record_type: string;
  record_id: number;
  before: unknown;
  after: unknown;
  withdrawn_tokens: number;
};

const text = (name: string, column: string) => ({ name, expression: `a.${column}`, kind: 'text' as const, filter: true, sort: true });

/** `audit-event`: the trail of administrative changes, read-only. */
export class AuditEventHandler implements RecordHandler {
  readonly type = 'audit-event';
  readonly relationships = {};
  // The trail of one record (recordType + recordId), of one actor or operation; newest first by -id or -occurredAt.
  readonly collection: Collection = {
    from: 'FROM audit_event a',
    fields: [
      idField('id', 'a.id'),
      { name: 'occurredAt', expression: 'a.occurred_at', kind: 'timestamp', filter: false, sort: true },
      text('actor', 'actor'),
      text('operation', 'operation'),
      text('recordType', 'record_type'),
      { name: 'recordId', expression: 'a.record_id', kind: 'integer', filter: true, sort: true },
    ],
    search: [],
  };

  create(): Promise<Written> {
    throw readOnly();
  }

  update(): Promise<Written> {
    throw readOnly();
  }

  remove(): Promise<void> {
    throw readOnly();
  }

  async find(manager: EntityManager, ids: number[]): Promise<ResourceObject[]> {
    if (ids.length === 0) return [];
    const rows: Row[] = await manager.query('SELECT * FROM audit_event WHERE id = ANY($1)', [ids]);
    return rows.map(serialise);
  }

  async list(manager: EntityManager, query: ListQuery): Promise<{ records: ResourceObject[]; total: number }> {
    const { rows, total } = await selectPage<Row>(manager, this.collection, 'SELECT a.*', query);
    return { records: rows.map(serialise), total };
  }

  snapshot(): Promise<Snapshot | null> {
    return Promise.resolve(null);
  }
}

function serialise(row: Row): ResourceObject {
  return {
    type: 'audit-event',
    id: String(row.id),
    attributes: {
      occurredAt: row.occurred_at,
      actor: row.actor,
      operation: row.operation,
      recordType: row.record_type,
      recordId: String(row.record_id),
      before: row.before,
      after: row.after,
      withdrawnTokens: row.withdrawn_tokens,
    },
  };
}

function readOnly(): AdminError {
  return new AdminError(409, 'read_only', 'audit-event records are written by the server only', '/op');
}
