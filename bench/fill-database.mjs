// Fills a fresh embedded database of ours through plain SQL, for the benchmarks (bench/run.mjs's
// tickets case, bench/console.mjs). Shared so both measure the same data.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

/** A client of the embedded PostgreSQL a server started with DATA_DIR=`dataDir` runs. */
export async function connectEmbedded(dataDir) {
  const password = readFileSync(path.join(dataDir, 'postgres-password'), 'utf8').trim();
  const port = readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3];
  const db = new pg.Client({ connectionString: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/authorization_server` });
  await db.connect();
  return db;
}

/**
 * 10,000 clients (`load-client-<n>`, allowed `scope`) and 20,000 each of purposes, capability
 * tickets, requested resources, their scopes and their combinations (100,000 ticket records),
 * spread over the clients; one definition `blood-glucose-level` with its scope `read`; 1,000 data
 * sources each serving a definition of its own, and `extraDefinitions` more definitions. With
 * `benchClientId`, that client (already enrolled) gets a ticket for `blood-glucose-level:read`
 * and a data source serves it (the token's aud). One transaction, then ANALYZE.
 */
export async function fillDatabase(db, { scope, benchClientId, extraDefinitions = 0 }) {
  await db.query('BEGIN');
  const [definition, clients, rows] = [1_000_000, 10_000, 20_000];
  await db.query(`INSERT INTO resource_definition (id, name) VALUES ($1, 'blood-glucose-level')`, [definition]);
  await db.query(`INSERT INTO scope (id, name, resource_definition_id) VALUES ($1, 'read', $1)`, [definition]);
  await db.query(
    `INSERT INTO client_metadata (id, client_authentication_type, grant_types, allowed_scopes, client_secret_hash)
    SELECT 1000000 + g, 'client_secret_basic', 'client_credentials', $1, 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
    FROM generate_series(1, $2) g`,
    [scope, clients],
  );
  await db.query(
    `INSERT INTO client (id, client_id, client_name, metadata_id) SELECT 1000000 + g, 'load-client-' || g, 'Load ' || g, 1000000 + g FROM generate_series(1, $1) g`,
    [clients],
  );
  const owner = `1000000 + ((g - 1) % ${clients}) + 1`;
  await db.query(`INSERT INTO purpose (id, name) SELECT 1000000 + g, 'purpose ' || g FROM generate_series(1, $1) g`, [rows]);
  await db.query(
    `INSERT INTO capability_ticket (id, ticket_id, ticket_name, purpose_id, client_id) SELECT 1000000 + g, 'load-ticket-' || g, 'Load', 1000000 + g, ${owner} FROM generate_series(1, $1) g`,
    [rows],
  );
  await db.query(
    `INSERT INTO requested_resource (id, max_permission_duration, requested_resource_id, resource_definition_id, client_id) SELECT 1000000 + g, 3600, 'load-resource-' || g, $2, ${owner} FROM generate_series(1, $1) g`,
    [rows, definition],
  );
  await db.query(
    `INSERT INTO requested_resource_scopes (id, scope_id, purpose_id, requested_resource_id) SELECT 1000000 + g, $2, 1000000 + g, 1000000 + g FROM generate_series(1, $1) g`,
    [rows, definition],
  );
  await db.query(
    `INSERT INTO requested_resources_capability_tickets (id, capability_ticket_id, requested_resource_id) SELECT 1000000 + g, 1000000 + g, 1000000 + g FROM generate_series(1, $1) g`,
    [rows],
  );
  // Issue 13: 1,000 data sources, each serving a definition of its own.
  const dataSources = 1_000;
  await db.query(`INSERT INTO resource_definition (id, name) SELECT 1100000 + g, 'load-definition-' || g FROM generate_series(1, $1) g`, [
    dataSources + extraDefinitions,
  ]);
  await db.query(
    `INSERT INTO data_source (id, name, kind, resource_uri) SELECT 1000000 + g, 'Load ' || g, 'resource-server', 'https://load-' || g || '.example/api' FROM generate_series(1, $1) g`,
    [dataSources],
  );
  await db.query(
    `INSERT INTO data_source_resource_definitions (id, data_source_id, resource_definition_id) SELECT 1000000 + g, 1000000 + g, 1100000 + g FROM generate_series(1, $1) g`,
    [dataSources],
  );
  if (benchClientId) await ticketForBenchClient(db, benchClientId, definition);
  await db.query('COMMIT');
  await db.query('ANALYZE');
}

/** Only the definition `blood-glucose-level` with `read`, the bench client's ticket for it and one data source serving it. */
export async function fillBenchTicket(db, { benchClientId }) {
  const definition = 1_000_000;
  await db.query('BEGIN');
  await db.query(`INSERT INTO resource_definition (id, name) VALUES ($1, 'blood-glucose-level')`, [definition]);
  await db.query(`INSERT INTO scope (id, name, resource_definition_id) VALUES ($1, 'read', $1)`, [definition]);
  await ticketForBenchClient(db, benchClientId, definition);
  await db.query('COMMIT');
  await db.query('ANALYZE');
}

async function ticketForBenchClient(db, clientId, definition) {
  const [{ id: benchClient }] = (await db.query(`SELECT id FROM client WHERE client_id = $1`, [clientId])).rows;
  const mine = 2_000_000;
  await db.query(`INSERT INTO purpose (id, name) VALUES ($1, 'Your doctor follows your blood glucose level')`, [mine]);
  await db.query(`INSERT INTO capability_ticket (id, ticket_id, ticket_name, purpose_id, client_id) VALUES ($1, 'bench-ticket', 'Bench', $1, $2)`, [
    mine,
    benchClient,
  ]);
  await db.query(
    `INSERT INTO requested_resource (id, max_permission_duration, requested_resource_id, resource_definition_id, client_id) VALUES ($1, 3600, 'bench-resource', $2, $3)`,
    [mine, definition, benchClient],
  );
  await db.query(`INSERT INTO requested_resource_scopes (id, scope_id, purpose_id, requested_resource_id) VALUES ($1, $2, $1, $1)`, [mine, definition]);
  await db.query(`INSERT INTO requested_resources_capability_tickets (id, capability_ticket_id, requested_resource_id) VALUES ($1, $1, $1)`, [mine]);
  await db.query(`INSERT INTO data_source (id, name, kind, resource_uri) VALUES ($1, 'Glucose API', 'resource-server', 'https://glucose.example/api')`, [mine]);
  await db.query(`INSERT INTO data_source_resource_definitions (id, data_source_id, resource_definition_id) VALUES ($1, $1, $2)`, [mine, definition]);
}
