import type { MigrationInterface, QueryRunner } from 'typeorm';

const SUBJECT_COLUMNS = [
  'tls_client_auth_subject_dn',
  'tls_client_auth_san_dns',
  'tls_client_auth_san_uri',
  'tls_client_auth_san_ip',
  'tls_client_auth_san_email',
];

/**
 * Mutual TLS (docs/guides/mtls.md): a tls_client_auth client's one registered subject value
 * (RFC 8705 §2.1.2) and the flag of certificate-bound tokens (§3), each filterable in the admin
 * interface and served by an index as the others are (docs/reference/admin-filters.md).
 */
export class MutualTls1765150000000 implements MigrationInterface {
  name = 'MutualTls1765150000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const column of SUBJECT_COLUMNS) {
      await queryRunner.query(`ALTER TABLE "client_metadata" ADD "${column}" character varying(2048)`);
      await queryRunner.query(`CREATE INDEX "IDX_client_metadata_${column.slice('tls_client_auth_'.length)}" ON "client_metadata" USING hash ("${column}")`);
    }
    await queryRunner.query(`ALTER TABLE "client_metadata" ADD "tls_client_certificate_bound_access_tokens" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`CREATE INDEX "IDX_client_metadata_certificate_bound" ON "client_metadata" ("tls_client_certificate_bound_access_tokens")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_client_metadata_certificate_bound"`);
    await queryRunner.query(`ALTER TABLE "client_metadata" DROP COLUMN "tls_client_certificate_bound_access_tokens"`);
    for (const column of SUBJECT_COLUMNS) {
      await queryRunner.query(`DROP INDEX "IDX_client_metadata_${column.slice('tls_client_auth_'.length)}"`);
      await queryRunner.query(`ALTER TABLE "client_metadata" DROP COLUMN "${column}"`);
    }
  }
}
