import { Global, Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ChangeFeed } from './change-feed.js';
import { DatabaseMetrics } from './database-metrics.js';
import { connectionBudget } from './connection-budget.js';
import { runMigrations } from './database-runtime.js';
import { discardReadOnlySessions } from './read-only-sessions.js';
import { buildDataSourceOptions, type Entities } from './typeorm-options.js';

/** The configuration, the TypeORM data source (migrated at start) and the change feed. */
@Global()
@Module({})
export class DatabaseModule {
  /**
   * `entities`: every feature's, from the composition root (src/entities.ts); `applicationName`:
   * how pg_stat_activity names this process's sessions (the CLI passes its own).
   */
  static forRoot(config: AppConfig, entities: Entities, applicationName?: string): DynamicModule {
    if (!config.databaseUrl) throw new Error('DatabaseModule needs a database URL');
    const configProvider = { provide: APP_CONFIG, useValue: config };
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => buildDataSourceOptions(config.databaseUrl!, entities, connectionBudget(config).typeorm, applicationName),
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            discardReadOnlySessions((dataSource.driver as unknown as { master: Pool }).master);
            await runMigrations(dataSource);
            return dataSource;
          },
        }),
      ],
      providers: [configProvider, ChangeFeed, DatabaseMetrics],
      exports: [configProvider, ChangeFeed],
    };
  }
}
