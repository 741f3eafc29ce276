import { Module } from '@nestjs/common';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { MediaGc } from '../media/media-gc.js';
import { MediaRepository } from '../media/media.repository.js';
import { mediaStorageProvider } from '../media/storage/media-storage.provider.js';
import { UsersModule } from '../users/users.module.js';

/**
 * The app's own configuration, database (migrations included) and users modules, and its
 * image storage, without HTTP and without the start-up admin bootstrap, which lives in the
 * auth module.
 */
@Module({
  imports: [AppConfigModule, DatabaseModule, UsersModule],
  providers: [mediaStorageProvider, MediaRepository, MediaGc],
})
export class CliModule {}
