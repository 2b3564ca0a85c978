import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console's search of initial access tokens by the start of their name
 * (docs/reference/admin-filters.md): a prefix index like every other searched column.
 */
export class InitialAccessTokenSearch1765210000000 implements MigrationInterface {
  name = 'InitialAccessTokenSearch1765210000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX "IDX_initial_access_token_search_name" ON "initial_access_token" (lower(left("name", 100)) text_pattern_ops)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "IDX_initial_access_token_search_name"');
  }
}
