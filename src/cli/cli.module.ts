import { Module } from '@nestjs/common';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { EventsModule } from '../events/events.module.js';
import { MediaGcModule } from '../media/media-gc.module.js';
import { UsersModule } from '../users/users.module.js';

/**
 * The app's own configuration, database (migrations included), domain events and users
 * modules, and the image clean-up, without HTTP and without the start-up admin bootstrap,
 * which lives in the auth module. Of the outbox's consumers, only the users' recurring sweep
 * is loaded: the CLI's changes are handed over by the app's instances.
 */
@Module({
  imports: [AppConfigModule, DatabaseModule, EventsModule, UsersModule, MediaGcModule],
})
export class CliModule {}
