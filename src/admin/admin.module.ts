import { Module } from '@nestjs/common';
import { AdminController } from './admin.controller.js';
import { AdminRecordsService } from './admin-records.service.js';
import { AdminTokenGuard } from './admin-token.guard.js';

/** The administrative interface; served only on ADMIN_PORT (see admin-listener.ts). */
@Module({
  controllers: [AdminController],
  providers: [AdminRecordsService, AdminTokenGuard],
})
export class AdminModule {}
