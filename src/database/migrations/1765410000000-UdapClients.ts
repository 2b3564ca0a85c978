import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Clients registered through UDAP (docs/reference/trust-communities.md): the trust community that
 * vouched for them, their identity in it (the SAN URI their software statement's `iss` named) and
 * their organization (the certificate's subject DN). One client per community and `iss`: a second
 * registration replaces the first. `trust_community_id` carries no foreign key: the community's
 * table belongs to a layer above the clients' (CONTRIBUTING.md), and removing a community that
 * still has clients is refused by its one writer, src/udap/.
 */
export class UdapClients1765410000000 implements MigrationInterface {
  name = 'UdapClients1765410000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "client" ADD "trust_community_id" integer`);
    await queryRunner.query(`ALTER TABLE "client" ADD "udap_issuer" character varying(2048)`);
    await queryRunner.query(`ALTER TABLE "client" ADD "organization" text`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_client_udap_member" ON "client" ("trust_community_id", "udap_issuer") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_client_udap_member"`);
    await queryRunner.query(`ALTER TABLE "client" DROP COLUMN "organization"`);
    await queryRunner.query(`ALTER TABLE "client" DROP COLUMN "udap_issuer"`);
    await queryRunner.query(`ALTER TABLE "client" DROP COLUMN "trust_community_id"`);
  }
}
