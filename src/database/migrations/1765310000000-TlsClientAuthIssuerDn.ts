import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tls_client_auth client's issuer binding (docs/guides/mtls.md#the-ca-file): the DN of the CA
 * of TLS_CLIENT_CA_FILE that must have issued its certificate; null, as every existing client
 * has, lets any CA of the file vouch for it. Filterable in the admin interface, served by a hash
index as the subject values are (docs/reference/admin-filters.md).
 */
export class TlsClientAuthIssuerDn1765310000000 implements MigrationInterface {
  name = 'TlsClientAuthIssuerDn1765310000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "client_metadata" ADD "tls_client_auth_issuer_dn" character varying(2048)`);
    await queryRunner.query(`CREATE INDEX "IDX_client_metadata_issuer_dn" ON "client_metadata" USING hash ("tls_client_auth_issuer_dn")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_client_metadata_issuer_dn"`);
    await queryRunner.query(`ALTER TABLE "client_metadata" DROP COLUMN "tls_client_auth_issuer_dn"`);
  }
}
