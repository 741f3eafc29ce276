import { Inject, Injectable } from '@nestjs/common';
import { mediaConfig, type MediaConfig } from '../../config/media.config.js';

/**
 * The bytes that uploads in flight may hold in memory, all together. Multipart parsing
 * buffers each file whole before the image queue is reached, so the queue alone does not
 * bound memory: an upload reserves its size here first, or is refused at once.
 */
@Injectable()
export class UploadBudget {
  private held = 0;
  private readonly maxBytes: number;

  constructor(@Inject(mediaConfig.KEY) cfg: MediaConfig) {
    this.maxBytes = cfg.maxBufferedBytes;
  }

  /** The release (idempotent), or `undefined` when `bytes` do not fit now. */
  tryReserve(bytes: number): (() => void) | undefined {
    if (this.held + bytes > this.maxBytes) return undefined;
    this.held += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= bytes;
    };
  }
}
