import { join } from 'node:path';
import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export interface S3Settings {
  bucket: string;
  endpoint?: string;
  region: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

export const mediaConfig = registerAs('media', (env: EnvironmentVariables = loadEnv()) => {
  const s3: S3Settings | undefined = env.S3_BUCKET
    ? {
        bucket: env.S3_BUCKET,
        endpoint: env.S3_ENDPOINT,
        region: env.S3_REGION,
        credentials:
          env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
            ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
            : undefined,
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
        connectTimeoutMs: env.S3_CONNECT_TIMEOUT_MS,
        requestTimeoutMs: env.S3_REQUEST_TIMEOUT_MS,
      }
    : undefined;
  return {
    // Fixed by docs/media.md rather than configurable: clients rely on these numbers.
    maxInputPixels: 40_000_000,
    // Frames of an animated GIF: each one costs a decode and an encode, whatever its size.
    maxFrames: 500,
    mainSize: 1024,
    thumbnailSize: 256,
    maxConcurrentJobs: env.MEDIA_MAX_CONCURRENT_JOBS,
    maxBufferedBytes: env.MEDIA_MAX_BUFFERED_BYTES,
    processingTimeoutSeconds: env.MEDIA_PROCESSING_TIMEOUT_SECONDS,
    localDir: env.MEDIA_DIR ?? join(env.DATA_DIR, 'media'),
    s3,
  };
});

export type MediaConfig = ConfigType<typeof mediaConfig>;
