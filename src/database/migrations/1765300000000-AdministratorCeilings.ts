import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an administrator set on a dynamically registered client (allowedScopes, grantTypes,
 * DPoP or certificate binding, accessTokenLifetime) becomes the ceiling of its RFC 7592 updates
 * (docs/reference/registration-endpoint.md#an-administrators-changes-are-ceilings).
 */
export class AdministratorCeilings1765300000000 implements MigrationInterface {
  name = 'AdministratorCeilings1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "client" ADD "administrator_ceilings" jsonb');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "client" DROP COLUMN "administrator_ceilings"');
  }
}
