import type { DataSourceOptions, MixedList, EntitySchema } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';
import { guardConnection } from './connection-guard.js';

/** The entity classes of every feature, listed at the composition root (src/entities.ts). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type Entities = MixedList<Function | string | EntitySchema>;

/**
 * The one options builder for the server, the CLI, the tests and the TypeORM CLI (ormconfig.ts),
 * given the entities by the composition root: this layer knows no feature. The server passes its
 * share of DATABASE_POOL_SIZE (connection-budget.ts); one-off tools keep 10. `applicationName`
 * names the sessions in pg_stat_activity: the CLI's are told apart from the server's.
 */
export function buildDataSourceOptions(url: string, entities: Entities, poolSize = 10, applicationName = 'authorization-server'): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'all',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolSize,
      // Short: during a failover a request is answered 503 soon rather than held (HAProxy with no
      // primary to route to refuses at once; this bounds the other cases).
      connectionTimeoutMillis: 3_000,
      // A query stuck behind a dead connection must fail fast, not hold a token request.
      query_timeout: 10_000,
      keepAlive: true,
      application_name: applicationName,
      // Every connection keeps an 'error' listener: a failover never ends the process (connection-guard.ts).
      onConnect: guardConnection,
    },
  };
}
