import { Module } from '@nestjs/common';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { EventsModule } from '../events/events.module.js';
import { MediaGcModule } from '../media/media-gc.module.js';
import { UsersModule } from '../users/users.module.js';

/**
 * The app's own configuration, database (migrations included), domain events and users
 * modules, and the image clean-up, without HTTP. UsersModule is the user row alone: the
 * account flows, their mails and the first admin's creation at start-up are AccountsModule's,
 * which only the app loads. Of the job engine's queues, only the sign-ups' expiry is served
 * here; the CLI's changes are handed over by the app's instances.
 */
@Module({
  imports: [AppConfigModule, DatabaseModule, EventsModule, UsersModule, MediaGcModule],
})
export class CliModule {}
