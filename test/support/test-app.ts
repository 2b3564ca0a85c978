import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Server } from 'node:http';
import pg from 'pg';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DestinationStream } from 'pino';
import type { DataSource } from 'typeorm';
import { closeAdmin, listenAdmin } from '../../src/http/listeners.js';
import { hardenServer } from '../../src/http/http-hardening.js';
import { createApp } from '../../src/app-factory.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { loadConfig } from '../../src/config/load-config.js';
import { freePort, freePorts } from '../../src/common/free-port.js';
import { createRootLogger } from '../../src/logging/logging.js';
import { writeUdapServerFiles } from './udap-anchors.js';

export { freePort, freePorts };

export type TestApp = {
  app: NestExpressApplication;
  /** Base URL of the public listener, also the issuer. */
  url: string;
  /** Base URL of the admin listener (`{admin_url}` is `${adminUrl}/admin`). */
  adminUrl: string;
  adminToken: string;
  /** The admin listener's server (the public one is `app.getHttpServer()`). */
  adminServer: Server;
  config: AppConfig;
  dataSource: DataSource;
  close(): Promise<void>;
};

/** This Jest worker's database: a migrated copy of its own when the run is parallel (test/global-setup.mjs). */
export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: the e2e global setup did not run');
  const worker = Number(process.env.JEST_WORKER_ID);
  if (!(Number(process.env.TEST_DATABASE_WORKERS) >= worker && worker >= 1)) return url;
  const own = new URL(url);
  own.pathname = `/${decodeURIComponent(own.pathname.slice(1)) || 'postgres'}_w${worker}`;
  return own.toString();
}

/** A new, empty database on the test server, named `<prefix>_<random>`; answers its URL. */
export async function freshDatabase(prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export type TestAppOptions = {
  /** Where the log lines go (LOG_LEVEL from `environment`, default info); without it, nothing is logged. */
  logs?: DestinationStream;
};

/**
 * The real application on the test database, listening on a free port of 127.0.0.1. The ports are
 * chosen first, so that the issuer is this address (`https://` under native TLS: a client checks
 * the issuer and the endpoint URLs it derives from it).
 */
export async function startTestApp(environment: NodeJS.ProcessEnv = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const [port, adminPort] = await freePorts(2);
  const url = `${environment.TLS_CERT_FILE ? 'https' : 'http'}://127.0.0.1:${port}`;
  const adminToken = environment.ADMIN_TOKEN ?? 'test-admin-token-0123456789';
  // UDAP=true needs the server's certificate for its ISSUER (docs/reference/trust-communities.md#the-servers-certificate): made here unless the test names its own.
  const udapFiles =
    environment.UDAP === 'true' && environment.UDAP_CERT_FILE === undefined && environment.UDAP_KEY_FILE === undefined
      ? await writeUdapServerFiles(mkdtempSync(join(tmpdir(), 'udap-server-')), environment.ISSUER ?? url)
      : undefined;
  const udapDir = udapFiles ? dirname(udapFiles.UDAP_CERT_FILE) : undefined;
  const udap = udapFiles ? { UDAP_CERT_FILE: udapFiles.UDAP_CERT_FILE, UDAP_KEY_FILE: udapFiles.UDAP_KEY_FILE } : {};
  const config = {
    ...loadConfig({ PORT: String(port), ADMIN_PORT: String(adminPort), ISSUER: url, ADMIN_TOKEN: adminToken, ...udap, ...environment }),
    databaseUrl: environment.DATABASE_URL ?? testDatabaseUrl(),
  };
  const logger = options.logs ? createRootLogger(config, options.logs) : createRootLogger({ ...config, logLevel: 'silent' });
  const app = await createApp(config, logger);
  hardenServer(app.getHttpServer());
  await app.listen(port, '127.0.0.1');
  const adminServer = await listenAdmin(app, adminPort, '127.0.0.1');
  const dataSource = app.get<DataSource>(getDataSourceToken());
  const close = async () => {
    await Promise.all([closeAdmin(adminServer), app.close()]);
    if (udapDir) rmSync(udapDir, { recursive: true, force: true });
  };
  return { app, url, adminUrl: `http://127.0.0.1:${adminPort}`, adminToken, adminServer, config, dataSource, close };
}
