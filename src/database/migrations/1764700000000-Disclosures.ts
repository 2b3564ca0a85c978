import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Disclosures (docs/guides/consent-withdrawal.md): one row per access token with a resource scope,
 * 64-bit ids, copies and no foreign keys; `disclosure_basis`, the records each one's coverage
 * rests on, keyed so that a change finds the disclosures it may withdraw by index; and the number
 * of tokens each audited change withdrew.
 */
export class Disclosures1764700000000 implements MigrationInterface {
  name = 'Disclosures1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "disclosure" ("id" BIGSERIAL NOT NULL, "jti" character varying(64) NOT NULL, "client_key" integer NOT NULL, "client_id" character varying(255) NOT NULL, "scope" text NOT NULL, "aud" jsonb NOT NULL, "resources" jsonb NOT NULL, "issued_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "token_type" character varying(8) NOT NULL, "jkt" character varying(64), "request_id" character varying(128), "chains" jsonb NOT NULL, "withdrawn_at" TIMESTAMP WITH TIME ZONE, "withdrawn_by" integer, CONSTRAINT "PK_b8eace3be471f4a07b7fce9f4d6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_expires" ON "disclosure" ("expires_at")`);
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_client" ON "disclosure" ("client_id", "issued_at", "id")`);
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_issued" ON "disclosure" ("issued_at", "id")`);
    await queryRunner.query(
      `CREATE TABLE "disclosure_basis" ("record_type" character varying(64) NOT NULL, "record_ref" character varying(2048) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "disclosure_id" bigint NOT NULL, CONSTRAINT "PK_disclosure_basis" PRIMARY KEY ("record_type", "record_ref", "expires_at", "disclosure_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_basis_expires" ON "disclosure_basis" ("expires_at")`);
    await queryRunner.query(`ALTER TABLE "audit_event" ADD "withdrawn_tokens" integer NOT NULL DEFAULT '0'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_event" DROP COLUMN "withdrawn_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_basis_expires"`);
    await queryRunner.query(`DROP TABLE "disclosure_basis"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_issued"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_client"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_expires"`);
    await queryRunner.query(`DROP TABLE "disclosure"`);
  }
}
