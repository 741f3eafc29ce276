import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { OnApplicationShutdown } from '@nestjs/common';
import { BackendUnavailableError } from '../../common/errors/backend-unavailable.error.js';
import type { S3Settings } from '../../config/media.config.js';
import { isMediaKey } from '../media-key.js';
import {
  assertStorageKey,
  STORAGE_RETRY_AFTER_SECONDS,
  type MediaStorage,
  type StoredKey,
  type StoredObject,
} from './media-storage.js';

const isNotFound = (error: unknown) => {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
};

/**
 * An S3-compatible bucket (AWS, MinIO, Ceph, ...). The bucket must exist. Every failure but
 * "no such object" (refused or timed-out connections, a bucket that does not answer, denied
 * access) is a BackendUnavailableError, i.e. 503 with Retry-After, never a hung request.
 */
export class S3MediaStorage implements MediaStorage, OnApplicationShutdown {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      credentials: settings.credentials,
      forcePathStyle: settings.forcePathStyle,
      // The SDK waits forever by default. socketTimeout bounds the silence while a body
      // streams, after requestTimeout (which ends with the response's headers) is cleared.
      requestHandler: {
        connectionTimeout: settings.connectTimeoutMs,
        requestTimeout: settings.requestTimeoutMs,
        throwOnRequestTimeout: true,
        socketTimeout: settings.requestTimeoutMs,
      },
    });
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    assertStorageKey(key);
    await this.attempt(() =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: data,
          ContentType: contentType,
        }),
      ),
    );
  }

  async get(key: string): Promise<StoredObject | undefined> {
    assertStorageKey(key);
    const object = await this.attempt(() =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key })),
    );
    return object && { body: object.Body as Readable, size: object.ContentLength ?? 0 };
  }

  async exists(key: string): Promise<boolean> {
    assertStorageKey(key);
    const head = await this.attempt(() =>
      this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })),
    );
    return head !== undefined;
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.attempt(() =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })),
    );
  }

  async *list(): AsyncIterable<StoredKey> {
    try {
      for await (const page of paginateListObjectsV2(
        { client: this.client },
        { Bucket: this.bucket },
      )) {
        for (const object of page.Contents ?? []) {
          if (object.Key && isMediaKey(object.Key)) {
            yield { key: object.Key, modifiedAt: object.LastModified ?? new Date(0) };
          }
        }
      }
    } catch (error) {
      throw new BackendUnavailableError('Image storage', STORAGE_RETRY_AFTER_SECONDS, error);
    }
  }

  /** `undefined` for "no such object"; any other failure means the storage is unavailable. */
  private async attempt<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new BackendUnavailableError('Image storage', STORAGE_RETRY_AFTER_SECONDS, error);
    }
  }

  onApplicationShutdown(): void {
    this.client.destroy();
  }
}
