import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Revoked access tokens (by jti, until they expire) and refresh tokens (hashed, in families). */
export class TokenLifecycle1764100000000 implements MigrationInterface {
  name = 'TokenLifecycle1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "refresh_token" ("id" SERIAL NOT NULL, "token_hash" character varying(64) NOT NULL, "family_id" uuid NOT NULL, "scope" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "client_id" integer NOT NULL, CONSTRAINT "UQ_f0812282fad2e352cdaf83ef0a9" UNIQUE ("token_hash"), CONSTRAINT "PK_b575dd3c21fb0831013c909e7fe" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_refresh_token_family" ON "refresh_token"  ("family_id") `);
    await queryRunner.query(
      `CREATE TABLE "revoked_token" ("jti" character varying(64) NOT NULL, "client_id" character varying(255) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_51805a32c382d2841b953c16880" PRIMARY KEY ("jti"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_revoked_token_expires" ON "revoked_token"  ("expires_at") `);
    await queryRunner.query(
      `ALTER TABLE "refresh_token" ADD CONSTRAINT "FK_50ca12e70a3e6c67d9f7444f1e5" FOREIGN KEY ("client_id") REFERENCES "client"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "refresh_token" DROP CONSTRAINT "FK_50ca12e70a3e6c67d9f7444f1e5"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_revoked_token_expires"`);
    await queryRunner.query(`DROP TABLE "revoked_token"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_refresh_token_family"`);
    await queryRunner.query(`DROP TABLE "refresh_token"`);
  }
}
