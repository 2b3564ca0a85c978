import { Module } from '@nestjs/common';
import { ClientDirectory } from './client-directory.js';
import { ClientsService } from './clients.service.js';

@Module({
  providers: [ClientsService, ClientDirectory],
  exports: [ClientsService, ClientDirectory],
})
export class ClientsModule {}
