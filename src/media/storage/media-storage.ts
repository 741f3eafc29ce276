import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { OnApplicationShutdown, Provider } from '@nestjs/common';
import { BackendUnavailableError } from '../../common/errors/backend-unavailable.error.js';
import { mediaConfig, type MediaConfig, type S3Settings } from '../../config/media.config.js';
import { isMediaKey } from '../media-key.js';

export const MEDIA_STORAGE = Symbol('MediaStorage');

export interface StoredObject {
  body: Readable;
  size: number;
}

/** Where image bytes live. Keys are checked against the key grammar by every method. */
export interface MediaStorage {
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** `undefined` when there is no such object. */
  get(key: string): Promise<StoredObject | undefined>;
  exists(key: string): Promise<boolean>;
  /** Succeeds when the object is already gone. */
  delete(key: string): Promise<void>;
  /** Every stored object named by a media key, with when it was written. */
  list(): AsyncIterable<StoredKey>;
}

export interface StoredKey {
  key: string;
  modifiedAt: Date;
}

function assertKey(key: string): void {
  // Callers validate too; this is the last line before a path or an object name is built.
  if (!isMediaKey(key)) throw new Error(`Refusing malformed media key ${JSON.stringify(key)}`);
}

const isMissing = (error: unknown) => (error as { code?: string }).code === 'ENOENT';

/** A directory on this machine, fanned out by the key's first two characters. */
export class LocalMediaStorage implements MediaStorage {
  private readonly root: string;

  constructor(directory: string) {
    this.root = resolve(directory);
  }

  async put(key: string, data: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    // Written aside, then renamed: a reader never sees half a file under the real key.
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const file = await open(temporary, 'wx');
      try {
        await file.writeFile(data);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<StoredObject | undefined> {
    try {
      const file = await open(this.pathOf(key), 'r');
      try {
        const { size } = await file.stat();
        return { body: file.createReadStream(), size };
      } catch (error) {
        await file.close();
        throw error;
      }
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async *list(): AsyncIterable<StoredKey> {
    const fans = await readdir(this.root, { withFileTypes: true }).catch((error: unknown) => {
      if (isMissing(error)) return [];
      throw error;
    });
    for (const fan of fans.filter((entry) => entry.isDirectory())) {
      for (const name of await readdir(join(this.root, fan.name))) {
        if (!isMediaKey(name) || !name.startsWith(fan.name)) continue;
        const { mtime } = await stat(join(this.root, fan.name, name));
        yield { key: name, modifiedAt: mtime };
      }
    }
  }

  private pathOf(key: string): string {
    assertKey(key);
    return join(this.root, key.slice(0, 2), key);
  }
}

export const STORAGE_RETRY_AFTER_SECONDS = 5;

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
    assertKey(key);
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
    assertKey(key);
    const object = await this.attempt(() =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key })),
    );
    return object && { body: object.Body as Readable, size: object.ContentLength ?? 0 };
  }

  async exists(key: string): Promise<boolean> {
    assertKey(key);
    const head = await this.attempt(() =>
      this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })),
    );
    return head !== undefined;
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
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

export const mediaStorageProvider: Provider = {
  provide: MEDIA_STORAGE,
  inject: [mediaConfig.KEY],
  useFactory: (cfg: MediaConfig): MediaStorage =>
    cfg.s3 ? new S3MediaStorage(cfg.s3) : new LocalMediaStorage(cfg.localDir),
};
