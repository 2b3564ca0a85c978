import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/typeorm-options.js';
import { ENTITIES } from '../../src/entities.js';
import { testDatabaseUrl } from '../support/test-app.js';

describe('database schema', () => {
  it('is exactly what the entities describe once the migrations have run', async () => {
    const dataSource = await new DataSource(buildDataSourceOptions(testDatabaseUrl(), ENTITIES)).initialize();
    try {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});
