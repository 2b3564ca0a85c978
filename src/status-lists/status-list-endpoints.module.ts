import { Module } from '@nestjs/common';
import { TokensModule } from '../tokens/tokens.module.js';
import { StatusListPublisher } from './status-list-publisher.js';
import { StatusListsController } from './status-lists.controller.js';

/** The public status list endpoints; apart from StatusListsModule, since they sign with the token endpoint's keys. */
@Module({
  imports: [TokensModule],
  controllers: [StatusListsController],
  providers: [StatusListPublisher],
})
export class StatusListEndpointsModule {}
