import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { Readable } from 'node:stream';
import { ApiException } from '../common/errors/api-exception.js';
import { BackendUnavailableError } from '../common/errors/backend-unavailable.error.js';
import { messageOf } from '../common/errors/message-of.js';
import { matchesIfNoneMatch } from '../common/http/conditional-requests.js';
import { CACHE_CONTROL_HEADER, ETAG_HEADER } from '../common/http/header-names.js';
import { MEDIA_PATH } from '../common/http/route-space.js';
import { appConfig, type AppConfig } from '../config/app.config.js';
import { afterCommit, type TxHost } from '../database/transactions.js';
import { OnDomainEvent } from '../events/event-handlers.decorator.js';
import type { PetActor } from '../pets/pet-actor.js';
import type { PetEvent } from '../pets/pet-events.js';
import { PetsService } from '../pets/pets.service.js';
import { CONTENT_TYPES, sniffImageFormat } from './processing/image-format.js';
import { ImageProcessor } from './processing/image-processor.js';
import { contentTypeOfKey, etagOfKey, isMediaKey, newMediaKey } from './media-key.js';
import {
  MEDIA_STORAGE,
  STORAGE_RETRY_AFTER_SECONDS,
  type MediaStorage,
} from './storage/media-storage.js';
import { MediaRepository } from './media.repository.js';
import type { PetImage } from './pet-image.entity.js';
import type { ImageUpload } from './upload/upload-image.pipe.js';

interface MediaHeaders {
  'Content-Type': string;
  [ETAG_HEADER]: string;
  [CACHE_CONTROL_HEADER]: string;
  'X-Content-Type-Options': string;
}

type MediaResponse =
  | { notModified: true; headers: MediaHeaders }
  | { notModified: false; headers: MediaHeaders; body: Readable; size: number };

/** Builds the absolute URL of a stored object. */
export type MediaUrl = (key: string) => string;

const KEY_OF_MEDIA_URL = new RegExp(`/${MEDIA_PATH}/([^/?#]+)$`);

const mediaNotFound = () => new ApiException('NOT_FOUND', 'No such media');

// Well-formed, so that it passes the storage's key check, and made of zeros, which random
// keys never are in practice.
const STORAGE_PROBE_KEY = `${'0'.repeat(32)}.jpg`;

@Injectable()
export class MediaService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(MediaService.name);
  /** File deletions that run after the response; shutdown waits for them. */
  private readonly background = new Set<Promise<void>>();

  constructor(
    private readonly images: MediaRepository,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(appConfig.KEY) private readonly app: AppConfig,
    private readonly petsService: PetsService,
    private readonly imageProcessor: ImageProcessor,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /** For readiness: the storage answers (a look-up of a key no upload can have). */
  async checkStorage(): Promise<void> {
    await this.storage.exists(STORAGE_PROBE_KEY);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.background);
  }

  /** `PUBLIC_BASE_URL` when configured, else the origin the request came to. */
  urlsFor(requestOrigin: string | undefined): MediaUrl {
    const base = this.app.publicBaseUrl ?? requestOrigin;
    if (!base) {
      throw ApiException.validation([{ field: 'Host', message: 'must be a plain host[:port]' }]);
    }
    return (key) => `${base}/${MEDIA_PATH}/${key}`;
  }

  /**
   * Checks, renders, stores, then records the image and appends its URL to the pet in one
   * transaction. Nothing is stored for a refused upload, and stored files are removed again
   * when the database step fails.
   */
  async upload(
    petId: number,
    upload: ImageUpload,
    urlOf: MediaUrl,
    actor: PetActor,
  ): Promise<PetImage> {
    await this.petsService.assertCanAddPhoto(petId);
    const format = sniffImageFormat(upload.image);
    if (!format) {
      throw new ApiException(
        'UNSUPPORTED_MEDIA_TYPE',
        'Only JPEG, PNG and GIF images are accepted (decided by the file content)',
      );
    }
    const { main, thumbnail } = await this.imageProcessor.render(upload.image, format);
    const key = newMediaKey(format);
    const thumbnailKey = newMediaKey(format);
    await this.storeAll(
      [
        [key, main.data],
        [thumbnailKey, thumbnail.data],
      ],
      CONTENT_TYPES[format],
    );
    try {
      return await this.txHost.withTransaction(async () => {
        await this.petsService.appendPhotoUrl(petId, urlOf(key), actor);
        return this.images.insert({
          petId,
          key,
          thumbnailKey,
          description: upload.description ?? null,
          width: main.width,
          height: main.height,
          format,
          bytes: main.data.length,
        });
      });
    } catch (error) {
      await this.deleteQuietly([key, thumbnailKey]);
      throw error;
    }
  }

  async list(petId: number): Promise<PetImage[]> {
    await this.petsService.assertExists(petId);
    return this.images.findByPet(petId);
  }

  /** A stored object for `GET /media/{key}`, or 304 when the client's copy is current. */
  async open(key: string, ifNoneMatch: string | undefined): Promise<MediaResponse> {
    const headers: MediaHeaders = {
      'Content-Type': contentTypeOfKey(key),
      [ETAG_HEADER]: etagOfKey(key),
      [CACHE_CONTROL_HEADER]: 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    };
    if (ifNoneMatch && matchesIfNoneMatch(ifNoneMatch, headers[ETAG_HEADER])) {
      if (!(await this.storage.exists(key))) throw mediaNotFound();
      return { notModified: true, headers };
    }
    const object = await this.storage.get(key);
    if (!object) throw mediaNotFound();
    return { notModified: false, headers, body: object.body, size: object.size };
  }

  /** In the pet's deleting transaction: the rows go with the pet, the files after it. */
  @OnDomainEvent('pet.deleted')
  async releaseImagesOfDeletedPet(event: PetEvent): Promise<void> {
    await this.releaseImagesNotIn(event.petId, []);
  }

  /**
   * In the transaction of a PUT that changed photoUrls: an image whose URL the new list no
   * longer holds goes, so that /images and photoUrls stay one list. URLs are matched by their
   * key, whatever base URL they were written with.
   */
  @OnDomainEvent('pet.updated')
  async releaseImagesDroppedFromPhotoUrls(event: PetEvent): Promise<void> {
    if (event.changedFields?.includes('photoUrls')) {
      await this.releaseImagesNotIn(event.petId, event.pet.photoUrls);
    }
  }

  /** The rows now, the files once the transaction has committed. */
  private async releaseImagesNotIn(petId: number, photoUrls: string[]): Promise<void> {
    const kept = photoUrls
      .map((url) => KEY_OF_MEDIA_URL.exec(url)?.[1])
      .filter((key): key is string => key !== undefined && isMediaKey(key));
    const keys = await this.images.deleteAllBut(petId, kept);
    // A slow or hung storage must not hold the answer.
    if (keys.length > 0) afterCommit(() => this.inBackground(() => this.deleteQuietly(keys)));
  }

  /** Runs work off the request path; it never rejects (deleteQuietly logs its failures). */
  private inBackground(work: () => Promise<void>): void {
    const running = work();
    this.background.add(running);
    void running.finally(() => this.background.delete(running));
  }

  private async storeAll(objects: [string, Buffer][], contentType: string): Promise<void> {
    const results = await Promise.allSettled(
      objects.map(([key, data]) => this.storage.put(key, data, contentType)),
    );
    const failure = results.find((r) => r.status === 'rejected');
    if (!failure) return;
    // Not awaited: when the storage hangs, its clean-up would hang the answer a second time.
    this.inBackground(() => this.deleteQuietly(objects.map(([key]) => key)));
    throw failure.reason instanceof BackendUnavailableError
      ? failure.reason
      : new BackendUnavailableError('Image storage', STORAGE_RETRY_AFTER_SECONDS, failure.reason);
  }

  /** Best effort: a file left behind is logged with its key, never turned into an error. */
  private async deleteQuietly(keys: string[]): Promise<void> {
    const results = await Promise.allSettled(keys.map((key) => this.storage.delete(key)));
    results.forEach((result, i) => {
      if (result.status === 'rejected') {
        this.logger.warn(
          `Could not delete media ${keys[i]}; npm run cli -- media-gc removes it later: ${messageOf(result.reason)}`,
        );
      }
    });
  }
}
