import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Clients, signing keys, the brute-force counters, and the change notifications that keep every
 * instance's caches fresh (a statement trigger per cached table: whoever writes, the CLI, the
 * admin interface or plain SQL, every server hears of it).
 */
export class Initial1763800000000 implements MigrationInterface {
  name = 'Initial1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "client_metadata" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "issuer_uri" character varying(2048), "client_authentication_type" character varying(32) NOT NULL, "client_type" character varying(32) NOT NULL DEFAULT 'CONFIDENTIAL', "grant_types" character varying(255) NOT NULL, "jwks_raw" text, "jwks_uri" character varying(2048), "meta_data_raw" text, "allowed_scopes" text NOT NULL, "client_secret_hash" character varying(255) NOT NULL, CONSTRAINT "PK_2425ce7c00e6fbea440f29101e9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "redirect_uri" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "uri" character varying(2048) NOT NULL, "client_id" integer NOT NULL, CONSTRAINT "PK_2b347361d45831de2211b77c0c3" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "client" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "client_id" character varying(255) NOT NULL, "client_name" character varying(255) NOT NULL, "metadata_id" integer NOT NULL, CONSTRAINT "UQ_7510ce0a84bde51dbff978b4b49" UNIQUE ("client_id"), CONSTRAINT "REL_2425ce7c00e6fbea440f29101e" UNIQUE ("metadata_id"), CONSTRAINT "PK_96da49381769303a6515a8785c7" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "signing_key" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "kid" character varying(64) NOT NULL, "alg" character varying(8) NOT NULL, "public_jwk" jsonb NOT NULL, "private_key" text NOT NULL, "retired_at" TIMESTAMP WITH TIME ZONE, "verify_until" TIMESTAMP WITH TIME ZONE, CONSTRAINT "UQ_00d7e305393ab903d6eb06c11f9" UNIQUE ("kid"), CONSTRAINT "PK_5cc161da020c79bb3ac9953edae" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "redirect_uri" ADD CONSTRAINT "FK_451547a947069d99ed074029919" FOREIGN KEY ("client_id") REFERENCES "client"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "client" ADD CONSTRAINT "FK_2425ce7c00e6fbea440f29101e9" FOREIGN KEY ("metadata_id") REFERENCES "client_metadata"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );

    // rate-limiter-flexible's PostgreSQL layout: failed client authentications per key and window.
    await queryRunner.query(`CREATE TABLE "auth_failure" ("key" character varying(255) PRIMARY KEY, "points" integer NOT NULL DEFAULT 0, "expire" bigint)`);

    await queryRunner.query(`
      CREATE FUNCTION notify_cached_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('cache_invalidation', TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    for (const table of ['client', 'client_metadata', 'redirect_uri', 'signing_key']) {
      await queryRunner.query(
        `CREATE TRIGGER "${table}_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION notify_cached_change()`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['client', 'client_metadata', 'redirect_uri', 'signing_key']) {
      await queryRunner.query(`DROP TRIGGER "${table}_changed" ON "${table}"`);
    }
    await queryRunner.query(`DROP FUNCTION notify_cached_change()`);
    await queryRunner.query(`DROP TABLE "auth_failure"`);
    await queryRunner.query(`ALTER TABLE "client" DROP CONSTRAINT "FK_2425ce7c00e6fbea440f29101e9"`);
    await queryRunner.query(`ALTER TABLE "redirect_uri" DROP CONSTRAINT "FK_451547a947069d99ed074029919"`);
    await queryRunner.query(`DROP TABLE "signing_key"`);
    await queryRunner.query(`DROP TABLE "client"`);
    await queryRunner.query(`DROP TABLE "redirect_uri"`);
    await queryRunner.query(`DROP TABLE "client_metadata"`);
  }
}
