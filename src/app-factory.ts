import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { AppConfig } from './config/app-config.js';
import { AppModule } from './app.module.js';
import { setUpApiDocs } from './http/api-docs.js';
import { createRootLogger } from './logging/logging.js';
import { PinoNestLogger } from './logging/nest-logger.js';
import { requestLog } from './logging/request-log.js';
import { requestMetrics } from './http/http-metrics.js';
import { secureHeaders, type HstsMode } from './http/http-hardening.js';
import { ExpressServerAdapter } from './http/express-server.js';
import { useRequestHooks } from './http/request-hooks.js';
import { MetricsService } from './metrics/metrics.service.js';

/**
 * Builds the application exactly as the server runs it, for main.ts and the e2e tests alike: no
 * global body parser (each route parses its own, strictly), no X-Powered-By, the proxies named
 * by TRUST_PROXY (the admin listener: ADMIN_TRUST_PROXY), a request id and a log line per request, admin routes only on the admin listener
 * (src/http/listeners.ts), request latency metrics, pino for every log line, the API documentation at /docs
 * on the admin listener.
 */
export async function createApp(config: AppConfig, logger: Logger = createRootLogger(config)): Promise<NestExpressApplication> {
  // The adapter's server keeps Express's prototypes on req/res (src/http/express-server.ts).
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config),
    new ExpressServerAdapter(config.tls, config.mtls !== undefined, config.mtls?.handshakeRate),
    {
      bodyParser: false,
      // A failed start is reported to the caller, which closes what was opened (not process.exit).
      abortOnError: false,
      logger: new PinoNestLogger(logger),
    },
  );
  app.disable('x-powered-by');
  // Token responses are unique and no-store: an ETag would only cost a hash per response.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  // TRUST_PROXY is the public listener's: the admin listener believes only ADMIN_TRUST_PROXY's
  // proxies, else the connection's peer (docs/operations/security.md#the-admin-listener-believes-only-its-own-proxies).
  adminExpress(app).set('trust proxy', config.adminTrustProxy);
  // One middleware for the three, in this order: a CORS preflight is answered before it is logged.
  // Which listener serves which route is decided at start-up (src/http/listener-routes.ts).
  useRequestHooks(app, [secureHeaders(config.corsAllowedOrigins, sendsHsts(config)), requestLog(logger), requestMetrics(app.get(MetricsService))]);
  setUpApiDocs(app);
  return app;
}

/** HSTS where responses can travel over HTTPS: native TLS, or an https issuer behind a trusted proxy. */
function sendsHsts(config: AppConfig): HstsMode {
  if (config.tls !== undefined) return 'native';
  return config.issuer.startsWith('https:') && config.trustProxy !== false ? 'proxied' : 'off';
}

function adminExpress(app: NestExpressApplication): Express {
  const adapter = app.getHttpAdapter();
  if (!(adapter instanceof ExpressServerAdapter)) throw new Error('the admin listener needs the ExpressServerAdapter');
  return adapter.adminInstance;
}
