import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Disclosures (docs/guides/consent-withdrawal.md): one row per access token with a resource scope,
 * 64-bit ids, copies and no foreign keys, as few indexes as the reads need (each token pays for
 * every one of them); `disclosure_basis`, one row per disclosure whose tags (the records its
 * coverage rests on) a GIN index finds; and the number of tokens each audited change withdrew.
 */
export class Disclosures1764700000000 implements MigrationInterface {
  name = 'Disclosures1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "disclosure" ("id" BIGSERIAL NOT NULL, "jti" character varying(64) NOT NULL, "client_key" integer NOT NULL, "client_id" character varying(255) NOT NULL, "scope" text NOT NULL, "aud" json NOT NULL, "resources" json NOT NULL, "issued_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "token_type" character varying(8) NOT NULL, "jkt" character varying(64), "request_id" character varying(128), "chains" json NOT NULL, "withdrawn_at" TIMESTAMP WITH TIME ZONE, "withdrawn_by" integer, CONSTRAINT "PK_b8eace3be471f4a07b7fce9f4d6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_issued" ON "disclosure" ("issued_at", "id")`);
    await queryRunner.query(
      `CREATE TABLE "disclosure_basis" ("disclosure_id" bigint NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "tags" bigint array NOT NULL, CONSTRAINT "PK_disclosure_basis" PRIMARY KEY ("disclosure_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_basis_tags" ON "disclosure_basis" USING GIN ("tags") WITH (fastupdate = on)`);
    await queryRunner.query(`ALTER TABLE "audit_event" ADD "withdrawn_tokens" integer NOT NULL DEFAULT '0'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_event" DROP COLUMN "withdrawn_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_basis_tags"`);
    await queryRunner.query(`DROP TABLE "disclosure_basis"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_issued"`);
    await queryRunner.query(`DROP TABLE "disclosure"`);
  }
}
