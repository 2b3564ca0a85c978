import type { EntityManager } from 'typeorm';
import { AdminError } from '../json-api/admin-error.js';
import type { ResourceObject } from '../json-api/resource-object.js';
import type { RecordHandler, Snapshot, Written } from './record-handler.js';

type Row = { id: number; occurred_at: Date; actor: string; operation: string; record_type: string; record_id: number; before: unknown; after: unknown; withdrawn_tokens: number };

/** `audit-event`: the trail of administrative changes, read-only. */
export class AuditEventHandler implements RecordHandler {
  readonly type = 'audit-event';
  readonly relationships = {};

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

  async list(manager: EntityManager, offset: number, limit: number): Promise<{ records: ResourceObject[]; total: number }> {
    const rows: Row[] = await manager.query('SELECT * FROM audit_event ORDER BY id LIMIT $1 OFFSET $2', [limit, offset]);
    const [{ count }] = await manager.query('SELECT count(*)::int AS count FROM audit_event');
    return { records: rows.map(serialise), total: count };
  }

  async snapshot(): Promise<Snapshot | null> {
    return null;
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
