import { Module } from '@nestjs/common';
import { ConsoleController } from './console.controller.js';

/** The administrator's console: a static front-end that talks only to the admin interface. */
@Module({ controllers: [ConsoleController] })
export class ConsoleModule {}
