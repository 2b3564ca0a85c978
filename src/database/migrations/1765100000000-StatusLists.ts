import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Token status lists (docs/reference/status-lists.md): the lists, the list and index of every
 * revoked or disclosed token, and signing keys published before they sign.
 */
export class StatusLists1765100000000 implements MigrationInterface {
  name = 'StatusLists1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "status_list" ("id" SERIAL NOT NULL, "public_id" character varying(22) NOT NULL, "size" integer NOT NULL, "bits" smallint NOT NULL DEFAULT '1', "permutation_key" bytea NOT NULL, "blocks_reserved" integer NOT NULL DEFAULT '0', "max_expires_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_status_list_public_id" UNIQUE ("public_id"), CONSTRAINT "PK_status_list" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`ALTER TABLE "revoked_token" ADD "status_list_id" integer`);
    await queryRunner.query(`ALTER TABLE "revoked_token" ADD "status_idx" integer`);
    await queryRunner.query(`CREATE INDEX "IDX_revoked_token_status_list" ON "revoked_token" ("status_list_id")`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "status_list_id" integer`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "status_idx" integer`);
    await queryRunner.query(`ALTER TABLE "signing_key" ADD "signs_from" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()`);
    // Existing keys have signed since they were created.
    await queryRunner.query(`UPDATE "signing_key" SET "signs_from" = "date_created"`);
    // Every instance hears of a revocation at once: its status lists are signed again.
    await queryRunner.query(
      `CREATE TRIGGER "revoked_token_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "revoked_token" FOR EACH STATEMENT EXECUTE FUNCTION notify_cached_change()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "revoked_token_changed" ON "revoked_token"`);
    await queryRunner.query(`ALTER TABLE "signing_key" DROP COLUMN "signs_from"`);
    await queryRunner.query(`ALTER TABLE "disclosure" DROP COLUMN "status_idx"`);
    await queryRunner.query(`ALTER TABLE "disclosure" DROP COLUMN "status_list_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_revoked_token_status_list"`);
    await queryRunner.query(`ALTER TABLE "revoked_token" DROP COLUMN "status_idx"`);
    await queryRunner.query(`ALTER TABLE "revoked_token" DROP COLUMN "status_list_id"`);
    await queryRunner.query(`DROP TABLE "status_list"`);
  }
}
