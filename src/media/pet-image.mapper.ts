import type { MediaUrl } from './media.service.js';
import { PetImageResponse, UploadImageResponse } from './dto/pet-image-response.dto.js';
import type { PetImage } from './pet-image.entity.js';

// An unset description becomes undefined, which JSON leaves out (docs/api.md: never null).
export function toPetImageResponse(image: PetImage, urlOf: MediaUrl): PetImageResponse {
  return {
    id: image.id,
    url: urlOf(image.key),
    thumbnailUrl: urlOf(image.thumbnailKey),
    description: image.description ?? undefined,
    width: image.width,
    height: image.height,
    format: image.format,
    bytes: image.bytes,
    createdAt: image.createdAt.toISOString(),
  };
}

export function toUploadImageResponse(image: PetImage, urlOf: MediaUrl): UploadImageResponse {
  return { message: 'Image uploaded', imageUrl: urlOf(image.key) };
}
