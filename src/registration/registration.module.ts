import { Module } from '@nestjs/common';
import { DisclosuresModule } from '../disclosures/disclosures.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { ClientsModule } from '../clients/clients.module.js';
import { RegistrationController } from './registration.controller.js';
import { RegistrationLine } from './registration-line.js';
import { RegistrationService } from './registration.service.js';
import { UdapRegistrations } from './udap-registrations.js';

/** Dynamic client registration (docs/guides/dynamic-registration.md) and UDAP registration (docs/reference/trust-communities.md#registration); present only with DYNAMIC_CLIENT_REGISTRATION=true or UDAP=true. */
@Module({
  imports: [ClientsModule, AuthModule, DisclosuresModule],
  controllers: [RegistrationController],
  providers: [RegistrationService, RegistrationLine, UdapRegistrations],
})
export class RegistrationModule {}
