import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revocations from memory (docs/reference/token-endpoint.md#revocations-from-memory): each
 * revocation records the id of the transaction that wrote it, so that an instance can read only
 * the revocations committed since its last read, and miss none: every transaction not yet
 * committed when it last read has an id at or above that read's snapshot horizon
 * (`pg_snapshot_xmin`). Rows revoked before this migration get the migration's own id.
 */
export class RevocationHorizon1765450000000 implements MigrationInterface {
  name = 'RevocationHorizon1765450000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "revoked_token" ADD "txid" bigint`);
    await queryRunner.query(`UPDATE "revoked_token" SET "txid" = pg_current_xact_id()::text::bigint`);
    await queryRunner.query(`ALTER TABLE "revoked_token" ALTER COLUMN "txid" SET NOT NULL`);
    await queryRunner.query(`CREATE INDEX "IDX_revoked_token_txid" ON "revoked_token" ("txid")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_revoked_token_txid"`);
    await queryRunner.query(`ALTER TABLE "revoked_token" DROP COLUMN "txid"`);
  }
}
