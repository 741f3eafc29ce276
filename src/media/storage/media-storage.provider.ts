import type { Provider } from '@nestjs/common';
import { mediaConfig, type MediaConfig } from '../../config/media.config.js';
import { LocalMediaStorage } from './local-media.storage.js';
import { MEDIA_STORAGE, type MediaStorage } from './media-storage.js';
import { S3MediaStorage } from './s3-media.storage.js';

/** S3 when S3_BUCKET is set, else a local directory. */
export const mediaStorageProvider: Provider = {
  provide: MEDIA_STORAGE,
  inject: [mediaConfig.KEY],
  useFactory: (cfg: MediaConfig): MediaStorage =>
    cfg.s3 ? new S3MediaStorage(cfg.s3) : new LocalMediaStorage(cfg.localDir),
};
