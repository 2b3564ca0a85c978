import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AppConfig } from './config/app-config.js';
import { AppModule } from './app.module.js';
import { separateListeners } from './admin/admin-listener.js';

/**
 * Builds the application exactly as the server runs it, for main.ts and the e2e tests alike: no
 * global body parser (each route parses its own, strictly), no X-Powered-By, the proxies named
 * by TRUST_PROXY, admin routes only on the admin listener (listenAdmin).
 */
export async function createApp(config: AppConfig, logger: false | undefined = undefined): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    logger: logger === false ? false : ['log', 'warn', 'error'],
  });
  app.disable('x-powered-by');
  // Token responses are unique and no-store: an ETag would only cost a hash per response.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  separateListeners(app);
  return app;
}
