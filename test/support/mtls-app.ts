import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app-factory.js';
import { loadConfig } from '../../src/config/load-config.js';
import { hardenServer } from '../../src/http/http-hardening.js';
import { closeAdmin, listenAdmin } from '../../src/http/listeners.js';
import { createRootLogger } from '../../src/logging/logging.js';
import { freePorts, testDatabaseUrl, type TestApp, type TestAppOptions } from './test-app.js';

/**
 * The real application as startTestApp builds it, but with the ports chosen first, so that the
 * issuer can be `https://127.0.0.1:PORT` under native TLS (a client checks the issuer and the
 * endpoint URLs it derives from it).
 */
export async function startTlsTestApp(environment: Record<string, string>, options: TestAppOptions = {}): Promise<TestApp> {
  const [port, adminPort] = await freePorts(2);
  const scheme = environment.TLS_CERT_FILE ? 'https' : 'http';
  const url = `${scheme}://127.0.0.1:${port}`;
  const adminToken = 'test-admin-token-0123456789';
  const config = {
    ...loadConfig({ PORT: String(port), ADMIN_PORT: String(adminPort), ISSUER: url, ADMIN_TOKEN: adminToken, ...environment }),
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
  };
  return { app, url, adminUrl: `http://127.0.0.1:${adminPort}`, adminToken, adminServer, config, dataSource, close };
}
