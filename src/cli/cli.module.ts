import { Module } from '@nestjs/common';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { UsersModule } from '../users/users.module.js';

/**
 * The app's own configuration, database (migrations included) and users modules, without
 * HTTP and without the start-up admin bootstrap, which lives in the auth module.
 */
@Module({ imports: [AppConfigModule, DatabaseModule, UsersModule] })
export class CliModule {}
