import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Withdrawals that survive a crash (docs/guides/consent-withdrawal.md): each change that may end
 * tokens leaves a row, in its own transaction, until its withdrawals are done.
 */
export class PendingWithdrawals1764900000000 implements MigrationInterface {
  name = 'PendingWithdrawals1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pending_withdrawal" ("audit_event_id" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_pending_withdrawal" PRIMARY KEY ("audit_event_id"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "pending_withdrawal"`);
  }
}
