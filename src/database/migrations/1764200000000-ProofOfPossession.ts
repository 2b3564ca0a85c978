import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Proof of possession (docs/guides/clients-with-keys.md): clients that authenticate with a key (no
 * secret hash), DPoP-bound clients, the single-use store of assertion and proof `jti`s shared by
 * every instance, and server secrets generated once (the DPoP nonce key).
 */
export class ProofOfPossession1764200000000 implements MigrationInterface {
  name = 'ProofOfPossession1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "client_metadata" ADD "dpop_bound_access_tokens" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`ALTER TABLE "client_metadata" ALTER COLUMN "client_secret_hash" DROP NOT NULL`);
    // Keys are SHA-256 digests of (kind, namespace, jti): nothing a client sent is stored in clear.
    await queryRunner.query(`CREATE TABLE "used_jti" ("key" character varying(64) PRIMARY KEY, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_used_jti_expires" ON "used_jti" ("expires_at")`);
    await queryRunner.query(
      `CREATE TABLE "server_secret" ("name" character varying(64) PRIMARY KEY, "value" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now())`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "server_secret"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_used_jti_expires"`);
    await queryRunner.query(`DROP TABLE "used_jti"`);
    await queryRunner.query(`DELETE FROM "client" WHERE "metadata_id" IN (SELECT "id" FROM "client_metadata" WHERE "client_secret_hash" IS NULL)`);
    await queryRunner.query(`DELETE FROM "client_metadata" WHERE "client_secret_hash" IS NULL`);
    await queryRunner.query(`ALTER TABLE "client_metadata" ALTER COLUMN "client_secret_hash" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "client_metadata" DROP COLUMN "dpop_bound_access_tokens"`);
  }
}
