import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { TicketPermission } from './permission-ticket.entity.js';
import { runEvery } from '../common/run-every.js';

// Expired tickets can never be redeemed: keep the table small.
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** A ticket's permission, with the resource as it stands now (null: deleted). */
export type RedeemedPermission = TicketPermission & { resource: CurrentResource | null };

/** A registered resource at redemption: owner, definition, scopes, and its owner's data sources serving that definition. */
export type CurrentResource = { clientId: number; type: string; scopes: string[]; servedBy: string[] };

/**
 * UMA permission tickets (docs/guides/uma.md): 256 random bits, base64url, stored only as their
 * SHA-256 with the registering client, the permissions and an expiry PERMISSION_TICKET_TTL ahead.
 */
@Injectable()
export class PermissionTickets implements OnModuleInit, OnModuleDestroy {
  private stopPurging?: () => void;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.stopPurging = runEvery(PURGE_INTERVAL_MS, () => this.purge());
  }

  onModuleDestroy(): void {
    this.stopPurging?.();
  }

  async issue(clientKey: number, permissions: TicketPermission[]): Promise<string> {
    const ticket = randomBytes(32).toString('base64url');
    await this.dataSource.query(
      `INSERT INTO permission_ticket (ticket_hash, client_id, permissions, expires_at) VALUES ($1, $2, $3::jsonb, now() + make_interval(secs => $4))`,
      [hashOf(ticket), clientKey, JSON.stringify(permissions), this.config.permissionTicketTtl],
    );
    return ticket;
  }

  /**
   * Redeems a ticket in one transaction: the row is locked, `judge` sees its permissions with
   * their resources as they stand now, and the row is deleted when `judge` accepts them (returns
   * without throwing). Two redemptions on any instances: the second finds nothing. Undefined for
   * an unknown, expired or used ticket.
   */
  async redeem<T>(ticket: string, judge: (clientKey: number, permissions: RedeemedPermission[]) => T): Promise<T | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const [row]: { id: number; client_id: number; permissions: TicketPermission[] }[] = await manager.query(
        'SELECT id, client_id, permissions FROM permission_ticket WHERE ticket_hash = $1 AND expires_at > now() FOR UPDATE',
        [hashOf(ticket)],
      );
      if (!row) return undefined;
      const resources = await currentResources(
        manager,
        row.permissions.map((permission) => permission.resource_id),
      );
      const verdict = judge(
        row.client_id,
        row.permissions.map((permission) => ({ ...permission, resource: resources.get(permission.resource_id) ?? null })),
      );
      await manager.query('DELETE FROM permission_ticket WHERE id = $1', [row.id]);
      return verdict;
    });
  }

  async purge(): Promise<void> {
    await this.dataSource.query('DELETE FROM permission_ticket WHERE expires_at < now()');
  }
}

function hashOf(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}

async function currentResources(manager: EntityManager, ids: string[]): Promise<Map<string, CurrentResource>> {
  const rows: { resource_id: string; client_id: number; type: string; scopes: string[]; served_by: string[] }[] = await manager.query(
    `SELECT r.resource_id, r.client_id, d.name AS type,
            ARRAY(SELECT s.name FROM uma_resource_scope rs JOIN scope s ON s.id = rs.scope_id
                   WHERE rs.uma_resource_id = r.id ORDER BY rs.position) AS scopes,
            ARRAY(SELECT ds.resource_uri FROM data_source ds JOIN data_source_resource_definitions x ON x.data_source_id = ds.id
                   WHERE ds.client_id = r.client_id AND x.resource_definition_id = r.resource_definition_id ORDER BY ds.id) AS served_by
       FROM uma_resource r JOIN resource_definition d ON d.id = r.resource_definition_id
      WHERE r.resource_id = ANY($1)`,
    [ids],
  );
  return new Map(rows.map((row) => [row.resource_id, { clientId: row.client_id, type: row.type, scopes: row.scopes, servedBy: row.served_by }]));
}
