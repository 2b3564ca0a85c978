import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from './config/app-config.js';
import { AdminModule } from './admin/admin.module.js';
import { ClientsModule } from './clients/clients.module.js';
import { DatabaseModule } from './database/database.module.js';
import { TokensModule } from './tokens/tokens.module.js';

/** The application: token endpoint, JWKS and metadata on PORT; the admin interface on ADMIN_PORT. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [DatabaseModule.forRoot(config), ClientsModule, TokensModule, AdminModule],
    };
  }
}
