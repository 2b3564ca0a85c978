import type { DataSourceOptions } from 'typeorm';
import { Client } from '../clients/client.entity.js';
import { ClientMetadata } from '../clients/client-metadata.entity.js';
import { RedirectUri } from '../clients/redirect-uri.entity.js';
import { SigningKey } from '../tokens/signing-key.entity.js';
import { MIGRATIONS } from './migrations/index.js';

export const ENTITIES = [Client, ClientMetadata, RedirectUri, SigningKey];

/** The one options builder for the server, the tests and the TypeORM CLI (ormconfig.ts). */
export function buildDataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'all',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: 10,
      connectionTimeoutMillis: 5_000,
      // A query stuck behind a dead connection must fail fast, not hold a token request.
      query_timeout: 10_000,
      keepAlive: true,
      application_name: 'authorization-server',
    },
  };
}
