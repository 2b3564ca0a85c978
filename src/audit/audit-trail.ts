import { hostname, userInfo } from 'node:os';
import type { EntityManager } from 'typeorm';

/** One audit event: who changed which record how, with its attributes before and after (never a secret). */
export type AuditEntry = {
  actor: string;
  operation: string;
  recordType: string;
  recordId: number;
  before: object | null;
  after: object | null;
};

/**
 * Writes an audit event inside the caller's transaction, so the change and its record of it
 * commit together or not at all; answers the event's id.
 */
export async function recordAuditEvent(manager: EntityManager, entry: AuditEntry): Promise<number> {
  const [{ id }]: { id: number }[] = await manager.query(
    'INSERT INTO audit_event (actor, operation, record_type, record_id, before, after) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
    [
      entry.actor,
      entry.operation,
      entry.recordType,
      entry.recordId,
      entry.before === null ? null : JSON.stringify(entry.before),
      entry.after === null ? null : JSON.stringify(entry.after),
    ],
  );
  return id;
}

/** Adds to the number of tokens a change withdrew (docs/guides/consent-withdrawal.md), in the withdrawal's transaction. */
export async function countWithdrawnTokens(manager: EntityManager, auditEventId: number, withdrawn: number): Promise<void> {
  await manager.query('UPDATE audit_event SET withdrawn_tokens = withdrawn_tokens + $2 WHERE id = $1', [auditEventId, withdrawn]);
}

/** The operator's command line as an actor: `cli:<user>@<host>` (the CLI holds no admin token). */
export function cliActor(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry for this uid (some containers): the host still says where
  }
  return `cli:${user}@${hostname()}`.slice(0, 255);
}
