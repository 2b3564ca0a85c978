import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/load-config.js';
import { openDatabase } from './src/database/database-runtime.js';
import { buildDataSourceOptions } from './src/database/typeorm-options.js';
import { ENTITIES } from './src/entities.js';

// The DataSource of the TypeORM CLI (`npm run typeorm -- migration:show`): DATABASE_URL, or the
// embedded PostgreSQL under DATA_DIR (attached to if a server runs, else started for the command).
const database = await openDatabase(loadConfig(process.env));

export default new DataSource(buildDataSourceOptions(database.url, ENTITIES));
