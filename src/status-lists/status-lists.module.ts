import { Module } from '@nestjs/common';
import { StatusIndexAllocator } from './status-index-allocator.js';
import { StatusListRetirement } from './status-list-retirement.js';

/** Index allocation for the token endpoint, and the job that deletes retired lists (docs/reference/status-lists.md). */
@Module({
  providers: [StatusIndexAllocator, StatusListRetirement],
  exports: [StatusIndexAllocator],
})
export class StatusListsModule {}
