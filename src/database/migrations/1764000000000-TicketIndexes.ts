import type { MigrationInterface, QueryRunner } from 'typeorm';

const INDEXES: [name: string, table: string, column: string][] = [
  ['IDX_capability_ticket_client', 'capability_ticket', 'client_id'],
  ['IDX_requested_resource_client', 'requested_resource', 'client_id'],
  ['IDX_requested_resource_scopes_resource', 'requested_resource_scopes', 'requested_resource_id'],
  ['IDX_combination_ticket', 'requested_resources_capability_tickets', 'capability_ticket_id'],
  ['IDX_combination_resource', 'requested_resources_capability_tickets', 'requested_resource_id'],
];

/** The token endpoint reads a client's consent tickets by client id: index every foreign key it follows. */
export class TicketIndexes1764000000000 implements MigrationInterface {
  name = 'TicketIndexes1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, table, column] of INDEXES) await queryRunner.query(`CREATE INDEX "${name}" ON "${table}" ("${column}")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of INDEXES) await queryRunner.query(`DROP INDEX "${name}"`);
  }
}
