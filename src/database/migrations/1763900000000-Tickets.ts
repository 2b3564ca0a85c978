import type { MigrationInterface, QueryRunner } from 'typeorm';

// Cached by the token endpoint (issue 4): every write notifies every instance.
const NOTIFYING_TABLES = [
  'purpose',
  'capability_ticket',
  'resource_definition',
  'requested_resource',
  'scope',
  'requested_resource_scopes',
  'requested_resources_capability_tickets',
];

/**
 * Consent tickets (docs/concepts/consent-tickets.md#the-records): resource definitions and their
 * scopes, purposes, capability tickets, requested resources, their scopes and their combinations,
 * with real foreign keys; and the audit trail of administrative changes.
 */
export class Tickets1763900000000 implements MigrationInterface {
  name = 'Tickets1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_event" ("id" SERIAL NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "actor" character varying(255) NOT NULL, "operation" character varying(16) NOT NULL, "record_type" character varying(64) NOT NULL, "record_id" integer NOT NULL, "before" jsonb, "after" jsonb, CONSTRAINT "PK_481efbe8b0a403efe3f47a6528f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "purpose" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(1024) NOT NULL, CONSTRAINT "PK_9f89c13188de03afb221ef2a4ac" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "capability_ticket" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "ticket_id" character varying(255) NOT NULL, "ticket_name" character varying(255) NOT NULL, "purpose_id" integer NOT NULL, "client_id" integer NOT NULL, CONSTRAINT "UQ_capability_ticket_ticket_id" UNIQUE ("ticket_id"), CONSTRAINT "PK_5361fa14390c78a98d5380405d8" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "resource_definition" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(255) NOT NULL, "description" character varying(2048), CONSTRAINT "UQ_resource_definition_name" UNIQUE ("name"), CONSTRAINT "PK_a35b40d3ce390f5bd48dd9b759e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "requested_resource" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "max_permission_duration" integer NOT NULL, "requested_resource_id" character varying(255) NOT NULL, "resource_definition_id" integer NOT NULL, "client_id" integer NOT NULL, CONSTRAINT "PK_156109cb79d06a77218034d23d1" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "scope" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(255) NOT NULL, "resource_definition_id" integer NOT NULL, CONSTRAINT "UQ_scope_name_per_definition" UNIQUE ("resource_definition_id", "name"), CONSTRAINT "PK_d3425631cbb370861a58c3e88c7" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "requested_resource_scopes" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "scope_id" integer NOT NULL, "purpose_id" integer NOT NULL, "requested_resource_id" integer NOT NULL, CONSTRAINT "PK_10f446218bbe0f74e07682ca96e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "requested_resources_capability_tickets" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "capability_ticket_id" integer NOT NULL, "requested_resource_id" integer NOT NULL, CONSTRAINT "PK_b6170ad4a6732a13323a7d4096f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "capability_ticket" ADD CONSTRAINT "FK_bf313861512beda7ec8e746fa7a" FOREIGN KEY ("purpose_id") REFERENCES "purpose"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "capability_ticket" ADD CONSTRAINT "FK_f7b1d5d8c6bf5f136de6d90203b" FOREIGN KEY ("client_id") REFERENCES "client"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "requested_resource" ADD CONSTRAINT "FK_4d8244d900c5d6ff216c845c489" FOREIGN KEY ("resource_definition_id") REFERENCES "resource_definition"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "requested_resource" ADD CONSTRAINT "FK_6f789ac9a377568aa4c236849fa" FOREIGN KEY ("client_id") REFERENCES "client"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "scope" ADD CONSTRAINT "FK_141cc8d9fa0b6356d302b1fc924" FOREIGN KEY ("resource_definition_id") REFERENCES "resource_definition"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "requested_resource_scopes" ADD CONSTRAINT "FK_cabfc0aff96d356cdeea14de9b5" FOREIGN KEY ("scope_id") REFERENCES "scope"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "requested_resource_scopes" ADD CONSTRAINT "FK_0f81f2e0590ddc79354e791319b" FOREIGN KEY ("purpose_id") REFERENCES "purpose"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "requested_resource_scopes" ADD CONSTRAINT "FK_e0c18c41bcc1f1154614cf3228f" FOREIGN KEY ("requested_resource_id") REFERENCES "requested_resource"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "requested_resources_capability_tickets" ADD CONSTRAINT "FK_e0cf8932e9611337127e4ead44d" FOREIGN KEY ("capability_ticket_id") REFERENCES "capability_ticket"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "requested_resources_capability_tickets" ADD CONSTRAINT "FK_30f79c7545a927993f82a93c9b5" FOREIGN KEY ("requested_resource_id") REFERENCES "requested_resource"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    for (const table of NOTIFYING_TABLES) {
      await queryRunner.query(
        `CREATE TRIGGER "${table}_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION notify_cached_change()`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of NOTIFYING_TABLES) await queryRunner.query(`DROP TRIGGER "${table}_changed" ON "${table}"`);
    await queryRunner.query(`ALTER TABLE "requested_resources_capability_tickets" DROP CONSTRAINT "FK_30f79c7545a927993f82a93c9b5"`);
    await queryRunner.query(`ALTER TABLE "requested_resources_capability_tickets" DROP CONSTRAINT "FK_e0cf8932e9611337127e4ead44d"`);
    await queryRunner.query(`ALTER TABLE "requested_resource_scopes" DROP CONSTRAINT "FK_e0c18c41bcc1f1154614cf3228f"`);
    await queryRunner.query(`ALTER TABLE "requested_resource_scopes" DROP CONSTRAINT "FK_0f81f2e0590ddc79354e791319b"`);
    await queryRunner.query(`ALTER TABLE "requested_resource_scopes" DROP CONSTRAINT "FK_cabfc0aff96d356cdeea14de9b5"`);
    await queryRunner.query(`ALTER TABLE "scope" DROP CONSTRAINT "FK_141cc8d9fa0b6356d302b1fc924"`);
    await queryRunner.query(`ALTER TABLE "requested_resource" DROP CONSTRAINT "FK_6f789ac9a377568aa4c236849fa"`);
    await queryRunner.query(`ALTER TABLE "requested_resource" DROP CONSTRAINT "FK_4d8244d900c5d6ff216c845c489"`);
    await queryRunner.query(`ALTER TABLE "capability_ticket" DROP CONSTRAINT "FK_f7b1d5d8c6bf5f136de6d90203b"`);
    await queryRunner.query(`ALTER TABLE "capability_ticket" DROP CONSTRAINT "FK_bf313861512beda7ec8e746fa7a"`);
    await queryRunner.query(`DROP TABLE "requested_resources_capability_tickets"`);
    await queryRunner.query(`DROP TABLE "requested_resource_scopes"`);
    await queryRunner.query(`DROP TABLE "scope"`);
    await queryRunner.query(`DROP TABLE "requested_resource"`);
    await queryRunner.query(`DROP TABLE "resource_definition"`);
    await queryRunner.query(`DROP TABLE "capability_ticket"`);
    await queryRunner.query(`DROP TABLE "purpose"`);
    await queryRunner.query(`DROP TABLE "audit_event"`);
  }
}
