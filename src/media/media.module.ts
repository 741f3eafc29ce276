import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PetImage } from './pet-image.entity.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { PetsModule } from '../pets/pets.module.js';
import { ImageProcessor } from './processing/image-processor.js';
import { ImageUploadInterceptor } from './upload/image-upload.interceptor.js';
import { ImportFileInterceptor } from './upload/import-file.interceptor.js';
import { MediaController } from './media.controller.js';
import { MediaRepository } from './media.repository.js';
import { mediaStorageProvider } from './storage/media-storage.provider.js';
import { MediaService } from './media.service.js';
import { PetImagesController } from './pet-images.controller.js';
import { UploadBudget } from './processing/upload-budget.js';

/** Pet images: upload, renditions, storage and serving. Depends on pets, never the reverse. */
@Module({
  imports: [TypeOrmModule.forFeature([PetImage]), PetsModule, IdempotencyModule],
  controllers: [PetImagesController, MediaController],
  providers: [
    MediaService,
    MediaRepository,
    ImageProcessor,
    ImageUploadInterceptor,
    ImportFileInterceptor,
    UploadBudget,
    mediaStorageProvider,
  ],
  // The import form's interceptor: the catalogue import reuses the upload's parsing.
  exports: [MediaService, ImportFileInterceptor],
})
export class MediaModule {}
