import { Module } from '@nestjs/common';
import { MediaGc } from './media-gc.js';
import { MediaRepository } from './media.repository.js';
import { mediaStorageProvider } from './storage/media-storage.provider.js';

/** The clean-up of unreferenced images, for the CLI: storage and database, no HTTP. */
@Module({
  providers: [mediaStorageProvider, MediaRepository, MediaGc],
  exports: [MediaGc],
})
export class MediaGcModule {}
