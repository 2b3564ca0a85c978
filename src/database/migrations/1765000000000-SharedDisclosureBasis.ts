import type { MigrationInterface, QueryRunner } from 'typeorm';

// A basis key: the first 128 bits of the SHA-256 of its chains and tags (the server computes its
// own keys the same way from its JSON; a key computed here for the same basis may differ, which
// only stores that basis twice).
const TAGS = `coalesce((SELECT o.tags FROM "disclosure_basis_per_row" o WHERE o.disclosure_id = d.id), '{}')`;
const KEY = `encode(substring(sha256(convert_to(d.chains::text || ' ' || ${TAGS}::text, 'UTF8')) from 1 for 16), 'hex')::uuid`;

/**
 * Disclosures share their basis (docs/guides/consent-withdrawal.md, "How rows are written"): the
 * tokens of one client under the same chains and data sources point at one `disclosure_basis`
 * row, keyed by a digest, that holds the chains and the tags; each disclosure keeps the key. The
 * existing rows are moved over.
 */
export class SharedDisclosureBasis1765000000000 implements MigrationInterface {
  name = 'SharedDisclosureBasis1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "disclosure_basis" RENAME TO "disclosure_basis_per_row"`);
    await queryRunner.query(`ALTER TABLE "disclosure_basis_per_row" RENAME CONSTRAINT "PK_disclosure_basis" TO "PK_disclosure_basis_per_row"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_basis_tags"`);
    await queryRunner.query(
      `CREATE TABLE "disclosure_basis" ("key" uuid NOT NULL, "chains" json NOT NULL, "tags" bigint array NOT NULL, CONSTRAINT "PK_disclosure_basis" PRIMARY KEY ("key"))`,
    );
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "basis" uuid`);
    await queryRunner.query(
      `INSERT INTO "disclosure_basis" ("key", "chains", "tags")
       SELECT DISTINCT ON (key) key, chains, tags FROM (SELECT ${KEY} AS key, d.chains, ${TAGS} AS tags FROM "disclosure" d) moved`,
    );
    await queryRunner.query(`UPDATE "disclosure" d SET "basis" = ${KEY}`);
    await queryRunner.query(`ALTER TABLE "disclosure" ALTER COLUMN "basis" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "disclosure" DROP COLUMN "chains"`);
    await queryRunner.query(`DROP TABLE "disclosure_basis_per_row"`);
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_basis" ON "disclosure" ("basis", "expires_at")`);
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_basis_tags" ON "disclosure_basis" USING GIN ("tags")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_basis"`);
    await queryRunner.query(`ALTER TABLE "disclosure" ADD "chains" json`);
    await queryRunner.query(`UPDATE "disclosure" d SET "chains" = b.chains FROM "disclosure_basis" b WHERE b.key = d.basis`);
    await queryRunner.query(`ALTER TABLE "disclosure" ALTER COLUMN "chains" SET NOT NULL`);
    await queryRunner.query(`DROP INDEX "public"."IDX_disclosure_basis_tags"`);
    await queryRunner.query(`ALTER TABLE "disclosure_basis" RENAME TO "disclosure_basis_shared"`);
    await queryRunner.query(`ALTER TABLE "disclosure_basis_shared" RENAME CONSTRAINT "PK_disclosure_basis" TO "PK_disclosure_basis_shared"`);
    await queryRunner.query(
      `CREATE TABLE "disclosure_basis" ("disclosure_id" bigint NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "tags" bigint array NOT NULL, CONSTRAINT "PK_disclosure_basis" PRIMARY KEY ("disclosure_id"))`,
    );
    await queryRunner.query(
      `INSERT INTO "disclosure_basis" ("disclosure_id", "expires_at", "tags") SELECT d.id, d.expires_at, b.tags FROM "disclosure" d JOIN "disclosure_basis_shared" b ON b.key = d.basis`,
    );
    await queryRunner.query(`DROP TABLE "disclosure_basis_shared"`);
    await queryRunner.query(`ALTER TABLE "disclosure" DROP COLUMN "basis"`);
    await queryRunner.query(`CREATE INDEX "IDX_disclosure_basis_tags" ON "disclosure_basis" USING GIN ("tags") WITH (fastupdate = on)`);
  }
}
