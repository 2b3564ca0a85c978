import type { MigrationInterface, QueryRunner } from 'typeorm';

// Cached by the token endpoint and introspection (aud): every write notifies every instance.
const NOTIFYING_TABLES = ['data_source', 'data_source_resource_definitions'];

/**
 * Data sources (docs/concepts/consent-tickets.md#data-sources, docs/concepts/audience.md): resource
 * servers and identity providers, their resource indicator (`resource_uri`, unique), the client
 * they introspect with, and the resource definitions each serves (one pair at most once).
 */
export class DataSources1764300000000 implements MigrationInterface {
  name = 'DataSources1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "data_source" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(255) NOT NULL, "kind" character varying(32) NOT NULL, "resource_uri" character varying(2048) NOT NULL, "client_id" integer, CONSTRAINT "UQ_data_source_resource_uri" UNIQUE ("resource_uri"), CONSTRAINT "PK_9775f6b6312a926ed37d3af7d95" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_data_source_client" ON "data_source" ("client_id")`);
    await queryRunner.query(
      `CREATE TABLE "data_source_resource_definitions" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "data_source_id" integer NOT NULL, "resource_definition_id" integer NOT NULL, CONSTRAINT "UQ_data_source_resource_definition" UNIQUE ("data_source_id", "resource_definition_id"), CONSTRAINT "PK_b5e46e14dfddd561ea65929e40c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_data_source_resource_definitions_definition" ON "data_source_resource_definitions" ("resource_definition_id")`);
    await queryRunner.query(
      `ALTER TABLE "data_source" ADD CONSTRAINT "FK_9659b18e5e46205b1d3545b08cf" FOREIGN KEY ("client_id") REFERENCES "client"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "data_source_resource_definitions" ADD CONSTRAINT "FK_f22453f74ad175728a657b18e4e" FOREIGN KEY ("data_source_id") REFERENCES "data_source"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "data_source_resource_definitions" ADD CONSTRAINT "FK_b268fa2e6655cb6538154e83317" FOREIGN KEY ("resource_definition_id") REFERENCES "resource_definition"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    for (const table of NOTIFYING_TABLES) {
      await queryRunner.query(
        `CREATE TRIGGER "${table}_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION notify_cached_change()`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of NOTIFYING_TABLES) await queryRunner.query(`DROP TRIGGER "${table}_changed" ON "${table}"`);
    await queryRunner.query(`ALTER TABLE "data_source_resource_definitions" DROP CONSTRAINT "FK_b268fa2e6655cb6538154e83317"`);
    await queryRunner.query(`ALTER TABLE "data_source_resource_definitions" DROP CONSTRAINT "FK_f22453f74ad175728a657b18e4e"`);
    await queryRunner.query(`ALTER TABLE "data_source" DROP CONSTRAINT "FK_9659b18e5e46205b1d3545b08cf"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_data_source_resource_definitions_definition"`);
    await queryRunner.query(`DROP TABLE "data_source_resource_definitions"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_data_source_client"`);
    await queryRunner.query(`DROP TABLE "data_source"`);
  }
}
