import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dynamic client registration (docs/guides/dynamic-registration.md): initial access tokens (stored
 * hashed, with their ceilings and use count), how each client came to be and what it registered
 * about itself, and per dynamically registered client the hash of its registration access token
 * and the ceilings it registered under.
 */
export class DynamicRegistration1765200000000 implements MigrationInterface {
  name = 'DynamicRegistration1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "initial_access_token" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(255) NOT NULL, "token_hash" character varying(64) NOT NULL, "scope_ceiling" text NOT NULL, "grant_types" character varying(255) NOT NULL, "auth_methods" character varying(255) NOT NULL, "access_token_lifetime" integer, "max_uses" integer NOT NULL, "uses" integer NOT NULL DEFAULT '0', "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_8126ae80d2c4d6fdb8b6360866a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_initial_access_token_name" ON "initial_access_token" ("name")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_initial_access_token_token_hash" ON "initial_access_token" ("token_hash")`);
    await queryRunner.query(
      `CREATE TABLE "client_registration" ("client_id" integer NOT NULL, "token_hash" character varying(64) NOT NULL, "scope_ceiling" text NOT NULL, "grant_types" character varying(255) NOT NULL, "auth_methods" character varying(255) NOT NULL, "access_token_lifetime" integer, CONSTRAINT "PK_a6f05d5dc920685faaabed1e409" PRIMARY KEY ("client_id"))`,
    );
    await queryRunner.query(`ALTER TABLE "client" ADD "registered_via" character varying(8) NOT NULL DEFAULT 'admin'`);
    await queryRunner.query(`ALTER TABLE "client" ADD "registration_management" boolean NOT NULL DEFAULT true`);
    await queryRunner.query(`ALTER TABLE "client" ADD "contacts" text`);
    await queryRunner.query(`ALTER TABLE "client" ADD "software_id" character varying(255)`);
    await queryRunner.query(`ALTER TABLE "client" ADD "software_version" character varying(255)`);
    await queryRunner.query(`ALTER TABLE "client" ADD "initial_access_token_id" integer`);
    // The admin interface's filters[registeredVia] and filter[initialAccessToken] (docs/reference/admin-filters.md).
    await queryRunner.query(`CREATE INDEX "IDX_client_registered_via" ON "client" ("registered_via")`);
    await queryRunner.query(`CREATE INDEX "IDX_client_initial_access_token_id" ON "client" ("initial_access_token_id")`);
    await queryRunner.query(
      `ALTER TABLE "client" ADD CONSTRAINT "FK_1eeca92def62e221ebed78c2028" FOREIGN KEY ("initial_access_token_id") REFERENCES "initial_access_token"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "client_registration" ADD CONSTRAINT "FK_a6f05d5dc920685faaabed1e409" FOREIGN KEY ("client_id") REFERENCES "client"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "client_registration" DROP CONSTRAINT "FK_a6f05d5dc920685faaabed1e409"`);
    await queryRunner.query(`ALTER TABLE "client" DROP CONSTRAINT "FK_1eeca92def62e221ebed78c2028"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_client_initial_access_token_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_client_registered_via"`);
    for (const column of ['initial_access_token_id', 'software_version', 'software_id', 'contacts', 'registration_management', 'registered_via']) {
      await queryRunner.query(`ALTER TABLE "client" DROP COLUMN "${column}"`);
    }
    await queryRunner.query(`DROP TABLE "client_registration"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_initial_access_token_token_hash"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_initial_access_token_name"`);
    await queryRunner.query(`DROP TABLE "initial_access_token"`);
  }
}
