import { Controller, Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { RequiredScope } from '../common/decorators/required-scope.decorator.js';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { MAX_PHOTO_URLS } from '../common/contract-limits.js';
import { Consumes } from '../common/decorators/consumes.decorator.js';
import { CurrentPrincipal } from '../common/decorators/current-principal.decorator.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import { ApiAuth, ApiIdParam } from '../openapi/api-docs.decorators.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import type { Principal } from '../common/types/principal.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { actorOf } from '../pets/pet-actor.js';
import { petNotFound } from '../pets/pet-not-found.js';
import { PetImageListResponse, UploadImageResponse } from './dto/pet-image-response.dto.js';
import { UPLOAD_IMAGE_FORM_SCHEMA } from './upload/upload-image.dto.js';
import { ImageUploadInterceptor } from './upload/image-upload.interceptor.js';
import { MediaService } from './media.service.js';
import { toPetImageResponse, toUploadImageResponse } from './pet-image.mapper.js';
import { RequestOrigin, UploadedForm } from './upload/upload-form.js';
import { UploadImagePipe, type ImageUpload } from './upload/upload-image.pipe.js';

@ApiTags('pets')
@ApiAuth()
@Controller('pets')
export class PetImagesController {
  constructor(private readonly mediaService: MediaService) {}

  @Post(':petId/upload-image')
  @RequiredScope('media:write')
  @HttpCode(201)
  @Consumes('multipart/form-data')
  // Above the upload's interceptor, so that it runs inside it and fingerprints the form.
  @Idempotent()
  @UseInterceptors(ImageUploadInterceptor)
  @ApiOperation({
    operationId: 'uploadPetImage',
    summary: 'Upload a pet image',
    description:
      'Stored resized within 1024×1024 with a 256×256 thumbnail, EXIF orientation applied and ' +
      'all metadata removed; its URL is appended to the pet’s photoUrls. Checks in order: ' +
      `the form (400), the pet (404, 409 when it has ${MAX_PHOTO_URLS} photoUrls), the bytes (415), ` +
      'decoding (400 INVALID_IMAGE).',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: UPLOAD_IMAGE_FORM_SCHEMA })
  @ApiIdParam('petId', 'Pet id')
  @ApiErrors({
    400: ['VALIDATION_ERROR', 'INVALID_IMAGE'],
    404: ['PET_NOT_FOUND'],
    409: ['CONFLICT'],
    413: ['PAYLOAD_TOO_LARGE'],
    415: ['UNSUPPORTED_MEDIA_TYPE'],
  })
  @ApiCreatedResponse({ type: UploadImageResponse, description: 'Stored' })
  async upload(
    @Param('petId', new ParseIdPipe(petNotFound)) petId: number,
    @UploadedForm(UploadImagePipe) upload: ImageUpload,
    @RequestOrigin() origin: string | undefined,
    @CurrentPrincipal() principal: Principal,
  ): Promise<UploadImageResponse> {
    const urlOf = this.mediaService.urlsFor(origin);
    const image = await this.mediaService.upload(petId, upload, urlOf, actorOf(principal));
    return toUploadImageResponse(image, urlOf);
  }

  @Get(':petId/images')
  @RequiredScope('pets:read')
  @ApiOperation({
    operationId: 'listPetImages',
    summary: 'List a pet’s images',
    description: 'The pet’s uploads with their thumbnails, oldest first.',
  })
  @ApiIdParam('petId', 'Pet id')
  @ApiErrors({ 404: ['PET_NOT_FOUND'] })
  @ApiOkResponse({ type: PetImageListResponse, description: 'The images' })
  async list(
    @Param('petId', new ParseIdPipe(petNotFound)) petId: number,
    @RequestOrigin() origin: string | undefined,
  ): Promise<PetImageListResponse> {
    const urlOf = this.mediaService.urlsFor(origin);
    const images = await this.mediaService.list(petId);
    return { images: images.map((image) => toPetImageResponse(image, urlOf)) };
  }
}
