import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module.js';
import { StatusIndexAllocator } from './status-index-allocator.js';
import { StatusListPublisher } from './status-list-publisher.js';
import { StatusListRetirement } from './status-list-retirement.js';
import { StatusListsController } from './status-lists.controller.js';

/**
 * Token status lists (docs/reference/status-lists.md): index allocation for the token endpoint,
 * the public list endpoints (signed with this server's keys), and the job that deletes retired lists.
 */
@Module({
  imports: [KeysModule],
  controllers: [StatusListsController],
  providers: [StatusIndexAllocator, StatusListPublisher, StatusListRetirement],
  exports: [StatusIndexAllocator],
})
export class StatusListsModule {}
