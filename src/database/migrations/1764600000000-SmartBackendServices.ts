import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SMART Backend Services (docs/guides/smart-backend-services.md): a client's own access token
 * lifetime, the FHIR resource type (and search query) a resource definition stands for, and the
 * SMART permission letters (`cruds`) of a scope.
 */
export class SmartBackendServices1764600000000 implements MigrationInterface {
  name = 'SmartBackendServices1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "client_metadata" ADD "access_token_lifetime" integer`);
    await queryRunner.query(`ALTER TABLE "resource_definition" ADD "fhir_resource_type" character varying(64)`);
    await queryRunner.query(`ALTER TABLE "resource_definition" ADD "fhir_query" character varying(512)`);
    await queryRunner.query(`ALTER TABLE "scope" ADD "smart_permissions" character varying(5)`);
    // SMART scopes look definitions up by type; wildcards list every mapped definition.
    await queryRunner.query(`CREATE INDEX "IDX_resource_definition_fhir_resource_type" ON "resource_definition" ("fhir_resource_type")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_resource_definition_fhir_resource_type"`);
    await queryRunner.query(`ALTER TABLE "scope" DROP COLUMN "smart_permissions"`);
    await queryRunner.query(`ALTER TABLE "resource_definition" DROP COLUMN "fhir_query"`);
    await queryRunner.query(`ALTER TABLE "resource_definition" DROP COLUMN "fhir_resource_type"`);
    await queryRunner.query(`ALTER TABLE "client_metadata" DROP COLUMN "access_token_lifetime"`);
  }
}
