import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from './config/app-config.js';
import { AdminModule } from './admin/admin.module.js';
import { ConsoleModule } from './console/console.module.js';
import { ClientsModule } from './clients/clients.module.js';
import { DatabaseModule } from './database/database.module.js';
import { ENTITIES } from './entities.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { TokensModule } from './tokens/tokens.module.js';
import { UmaModule } from './uma/uma.module.js';
import { StatusListsModule } from './status-lists/status-lists.module.js';
import { RegistrationModule } from './registration/registration.module.js';
import { UdapDiscoveryModule } from './tokens/udap-discovery.controller.js';

/**
 * The application: token endpoint, JWKS, metadata and health on PORT; the admin interface,
 * metrics and API documentation on ADMIN_PORT.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot(config, ENTITIES),
        MetricsModule,
        ClientsModule,
        TokensModule,
        StatusListsModule,
        UmaModule,
        // docs/guides/dynamic-registration.md: DYNAMIC_CLIENT_REGISTRATION=false leaves its paths unrouted (404).
        ...(config.dynamicClientRegistration || config.udap ? [RegistrationModule] : []),
        // docs/reference/trust-communities.md#discovery: UDAP=false leaves /.well-known/udap unrouted (404).
        ...(config.udap ? [UdapDiscoveryModule] : []),
        AdminModule,
        ConsoleModule,
        HealthModule,
      ],
    };
  }
}
