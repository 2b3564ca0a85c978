import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A trust community's own server certificate for UDAP discovery (docs/reference/trust-communities.md#discovery):
 * `server_certificate`, a PEM chain, leaf first, and `server_key`, the leaf's private key, sealed
 * with KEY_ENCRYPTION_SECRET as signing keys are when it is set. Both null: the server's
 * certificate (UDAP_CERT_FILE) signs that community's `signed_metadata`.
 */
export class TrustCommunityServerCertificates1765420000000 implements MigrationInterface {
  name = 'TrustCommunityServerCertificates1765420000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "trust_community" ADD "server_certificate" text`);
    await queryRunner.query(`ALTER TABLE "trust_community" ADD "server_key" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "trust_community" DROP COLUMN "server_key"`);
    await queryRunner.query(`ALTER TABLE "trust_community" DROP COLUMN "server_certificate"`);
  }
}
