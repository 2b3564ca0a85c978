import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Token exchange (docs/guides/token-exchange.md): the delegations between data sources (cached by
 * the servers, so a change notifies them as the data source tables do), and in the accounting of
 * disclosures the actors of an exchanged token and the token it was exchanged from.
 */
export class TokenExchange1765430000000 implements MigrationInterface {
  name = 'TokenExchange1765430000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "data_source_delegation" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "scopes" text array NOT NULL DEFAULT '{}', "from_id" integer NOT NULL, "to_id" integer NOT NULL, CONSTRAINT "UQ_data_source_delegation_pair" UNIQUE ("from_id", "to_id"), CONSTRAINT "PK_42d4bbc3ac48f00f11d0c66b705" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_data_source_delegation_to" ON "data_source_delegation" ("to_id")`);
    await queryRunner.query(
      `ALTER TABLE "data_source_delegation" ADD CONSTRAINT "FK_7d5472e4585a8ebdacf9e48fc02" FOREIGN KEY ("from_id") REFERENCES "data_source"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "data_source_delegation" ADD CONSTRAINT "FK_0a6da0d3ecdf366691388cf1408" FOREIGN KEY ("to_id") REFERENCES "data_source"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "data_source_delegation_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "data_source_delegation" FOR EACH STATEMENT EXECUTE FUNCTION notify_cached_change()`,
    );
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "actor" json`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "parent_jti" character varying(64)`);
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_parent_jti" ON "disclosure" ("parent_jti")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_disclosure_parent_jti"`);
    await queryRunner.query(`ALTER TABLE "disclosure" DROP COLUMN "parent_jti"`);
    await queryRunner.query(`ALTER TABLE "disclosure" DROP COLUMN "actor"`);
    await queryRunner.query(`DROP TRIGGER "data_source_delegation_changed" ON "data_source_delegation"`);
    await queryRunner.query(`DROP TABLE "data_source_delegation"`);
  }
}
