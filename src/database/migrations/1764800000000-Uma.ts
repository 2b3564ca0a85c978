import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * UMA 2.0 for data sources (docs/guides/uma.md): the resources a data source's umaClient
 * registers, the scopes each offers, and permission tickets (stored hashed, single use).
 * Registered resources hold their client, definition and scopes (RESTRICT: the admin interface
 * answers 409); a ticket goes with its client.
 */
export class Uma1764800000000 implements MigrationInterface {
  name = 'Uma1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "uma_resource" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "resource_id" character varying(64) NOT NULL, "name" character varying(255), "description" character varying(2000), "icon_uri" character varying(2048), "client_id" integer NOT NULL, "resource_definition_id" integer NOT NULL, CONSTRAINT "UQ_uma_resource_resource_id" UNIQUE ("resource_id"), CONSTRAINT "PK_2a846908c5365272214939d1cfb" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_uma_resource_definition" ON "uma_resource"("resource_definition_id")`);
    await queryRunner.query(`CREATE INDEX "IDX_uma_resource_client" ON "uma_resource"("client_id")`);
    await queryRunner.query(
      `CREATE TABLE "uma_resource_scope" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "position" integer NOT NULL, "uma_resource_id" integer NOT NULL, "scope_id" integer NOT NULL, CONSTRAINT "UQ_uma_resource_scope" UNIQUE ("uma_resource_id", "scope_id"), CONSTRAINT "PK_d31fe9f28bfe824273d5ffb2c07" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_uma_resource_scope_scope" ON "uma_resource_scope"("scope_id")`);
    await queryRunner.query(
      `CREATE TABLE "permission_ticket" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "ticket_hash" character varying(64) NOT NULL, "permissions" jsonb NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "client_id" integer NOT NULL, CONSTRAINT "UQ_permission_ticket_hash" UNIQUE ("ticket_hash"), CONSTRAINT "PK_570dd2cb9d4609e20807ec7461e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_permission_ticket_expires_at" ON "permission_ticket"("expires_at")`);
    await queryRunner.query(`CREATE INDEX "IDX_permission_ticket_client" ON "permission_ticket"("client_id")`);
    await queryRunner.query(
      `ALTER TABLE "uma_resource" ADD CONSTRAINT "FK_6359d81456380a0d3f616537817" FOREIGN KEY ("client_id") REFERENCES "client"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "uma_resource" ADD CONSTRAINT "FK_918cb5da468da5758c9d66bf31e" FOREIGN KEY ("resource_definition_id") REFERENCES "resource_definition"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "uma_resource_scope" ADD CONSTRAINT "FK_007a14c96e318910475a03e68be" FOREIGN KEY ("uma_resource_id") REFERENCES "uma_resource"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "uma_resource_scope" ADD CONSTRAINT "FK_a4ed6055e803c961710d445e1fd" FOREIGN KEY ("scope_id") REFERENCES "scope"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "permission_ticket" ADD CONSTRAINT "FK_eafb303bfb8bbaccfa6976c7769" FOREIGN KEY ("client_id") REFERENCES "client"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "permission_ticket"`);
    await queryRunner.query(`DROP TABLE "uma_resource_scope"`);
    await queryRunner.query(`DROP TABLE "uma_resource"`);
  }
}
