import { Controller, Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { Consumes } from '../common/decorators/consumes.decorator.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import { ImageUploadInterceptor } from './image-upload.interceptor.js';
import { MediaService } from './media.service.js';
import {
  toPetImageResponse,
  toUploadImageResponse,
  type PetImageResponse,
  type UploadImageResponse,
} from './pet-image.mapper.js';
import { RequestOrigin, UploadedForm } from './upload-form.js';
import { UploadImagePipe, type ImageUpload } from './upload-image.pipe.js';

@Controller('pets')
export class PetImagesController {
  constructor(private readonly mediaService: MediaService) {}

  @Post(':petId/upload-image')
  @HttpCode(201)
  @Consumes('multipart/form-data')
  @UseInterceptors(ImageUploadInterceptor)
  async upload(
    @Param('petId', ParseIdPipe) petId: string,
    @UploadedForm(UploadImagePipe) upload: ImageUpload,
    @RequestOrigin() origin: string | undefined,
  ): Promise<UploadImageResponse> {
    const urlOf = this.mediaService.urlsFor(origin);
    return toUploadImageResponse(await this.mediaService.upload(petId, upload, urlOf), urlOf);
  }

  @Get(':petId/images')
  async list(
    @Param('petId', ParseIdPipe) petId: string,
    @RequestOrigin() origin: string | undefined,
  ): Promise<{ images: PetImageResponse[] }> {
    const urlOf = this.mediaService.urlsFor(origin);
    const images = await this.mediaService.list(petId);
    return { images: images.map((image) => toPetImageResponse(image, urlOf)) };
  }
}
