import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Purpose of use (docs/concepts/consent-tickets.md#purpose-of-use): a purpose lists the
 * purpose-of-use codes a UDAP request may assert to be covered by its tickets, and a disclosure
 * keeps the `hl7-b2b` extension the request asserted (docs/guides/consent-withdrawal.md#purpose-of-use-in-the-accounting). The two
 * indexes are partial: a disclosure without an organization, every token but a UDAP one, adds
 * nothing to them.
 */
export class PurposesOfUse1765440000000 implements MigrationInterface {
  name = 'PurposesOfUse1765440000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "purpose" ADD "purposes_of_use" text array NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "organization_id" character varying(2048)`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "organization_name" text`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "purpose_of_use" text array`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "subject_name" text`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "subject_id" text`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "subject_role" text`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "consent_reference" text array`);
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_organization" ON "disclosure" ("organization_id", "issued_at") WHERE "organization_id" IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_purpose_of_use" ON "disclosure" USING gin ("purpose_of_use") WHERE "purpose_of_use" IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_purpose_of_use"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_organization"`);
    for (const column of ['consent_reference', 'subject_role', 'subject_id', 'subject_name', 'purpose_of_use', 'organization_name', 'organization_id']) {
      await queryRunner.query(`ALTER TABLE "disclosure" DROP COLUMN "${column}"`);
    }
    await queryRunner.query(`ALTER TABLE "purpose" DROP COLUMN "purposes_of_use"`);
  }
}
