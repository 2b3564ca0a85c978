import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * UDAP trust communities (docs/reference/trust-communities.md): each community's anchors (PEM
 * CA certificates), the ceilings of its members and whether they are checked for revocation.
 * Cached by the servers that check UDAP certificates, so a change notifies them as the client
 * tables do; the admin interface's filters are served by indexes (docs/reference/admin-filters.md).
 */
export class TrustCommunities1765400000000 implements MigrationInterface {
  name = 'TrustCommunities1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "trust_community" ("id" SERIAL NOT NULL, "version" integer NOT NULL DEFAULT '1', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(255) NOT NULL, "community_uri" character varying(2048) NOT NULL, "anchors" jsonb NOT NULL, "scope_ceiling" text NOT NULL, "purposes_of_use" jsonb NOT NULL DEFAULT '[]', "revocation_check" character varying(8) NOT NULL DEFAULT 'require', "access_token_lifetime" integer NOT NULL DEFAULT '3600', "enabled" boolean NOT NULL DEFAULT true, CONSTRAINT "PK_a982933ab54854aadb5b371d6ab" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_trust_community_name" ON "trust_community" ("name")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_trust_community_community_uri" ON "trust_community" ("community_uri")`);
    await queryRunner.query(`CREATE INDEX "IDX_trust_community_enabled" ON "trust_community" ("enabled")`);
    await queryRunner.query('CREATE INDEX "IDX_trust_community_search_name" ON "trust_community" (lower(left("name", 100)) text_pattern_ops)');
    await queryRunner.query(
      `CREATE TRIGGER "trust_community_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "trust_community" FOR EACH STATEMENT EXECUTE FUNCTION notify_cached_change()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "trust_community_changed" ON "trust_community"`);
    await queryRunner.query(`DROP TABLE "trust_community"`);
  }
}
