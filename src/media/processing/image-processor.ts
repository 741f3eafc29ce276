import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import type sharpModule from 'sharp';
import type { Sharp, SharpOptions } from 'sharp';
import { ApiException } from '../../common/errors/api-exception.js';
import { messageOf } from '../../common/errors/message-of.js';
import { mediaConfig, type MediaConfig } from '../../config/media.config.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { inSpan } from '../../tracing/tracer.js';
import type { ImageFormat } from './image-format.js';
import { JobLimiter, JobQueueFullError } from './job-limiter.js';

interface Rendition {
  data: Buffer;
  width: number;
  /** Of one frame, for animated GIFs. */
  height: number;
}

interface Renditions {
  main: Rendition;
  thumbnail: Rendition;
}

// libvips picks a loader by sniffing on its own; allow only the buffer loaders of the three
// accepted formats, so no other decoder (SVG, TIFF, PDF, HEIF, ...) is reachable at all.
const ALLOWED_LOADERS = [
  'VipsForeignLoadJpegBuffer',
  'VipsForeignLoadPngBuffer',
  'VipsForeignLoadNsgifBuffer',
];

// Waiting uploads hold their bytes (up to 5 MB each) in memory: keep the queue short.
const WAITING_JOBS_PER_SLOT = 8;

/** The only place that runs sharp: decoding is where untrusted bytes meet native code. */
@Injectable()
export class ImageProcessor {
  private readonly limiter: JobLimiter;
  // Loaded with the first image: libvips adds 7–10 MB of resident memory, which an
  // instance that is never sent an image would carry for nothing (docs/performance.md#memory).
  private sharp?: Promise<typeof sharpModule>;

  constructor(
    @Inject(mediaConfig.KEY) private readonly cfg: MediaConfig,
    private readonly metrics: MetricsService,
  ) {
    this.limiter = new JobLimiter(
      cfg.maxConcurrentJobs,
      cfg.maxConcurrentJobs * WAITING_JOBS_PER_SLOT,
    );
  }

  /** sharp, set up before its first use. */
  private vips(): Promise<typeof sharpModule> {
    this.sharp ??= import('sharp').then(({ default: sharp }) => {
      sharp.block({ operation: ['VipsForeignLoad'] });
      sharp.unblock({ operation: ALLOWED_LOADERS });
      // Uploads are never processed twice: a cache would only hold memory.
      sharp.cache(false);
      // Threads per image times images at once stays within the machine's cores.
      sharp.concurrency(
        Math.max(1, Math.floor(availableParallelism() / this.cfg.maxConcurrentJobs)),
      );
      return sharp;
    });
    return this.sharp;
  }

  /**
   * Main image and thumbnail: oriented, bounded, stripped of all metadata, in the input's
   * format. Undecodable, truncated or oversized input is a 400 INVALID_IMAGE.
   */
  async render(input: Buffer, format: ImageFormat): Promise<Renditions> {
    // Outside the try: a library that fails to load is the server's error, not the image's.
    const sharp = await this.vips();
    try {
      return await this.limiter.run(() =>
        inSpan(
          'image.render',
          { attributes: { 'image.format': format, 'image.input_bytes': input.length } },
          () => this.timed(() => this.renderNow(sharp, input, format)),
        ),
      );
    } catch (error) {
      throw toApiException(error, this.cfg);
    }
  }

  /** The work itself, refused images included: the time waiting for a slot is not counted. */
  private async timed<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.metrics.observeImageProcessing((performance.now() - started) / 1000);
    }
  }

  private async renderNow(
    sharp: typeof sharpModule,
    input: Buffer,
    format: ImageFormat,
  ): Promise<Renditions> {
    const animated = format === 'gif';
    const options: SharpOptions = {
      failOn: 'error',
      limitInputPixels: this.cfg.maxInputPixels,
      animated,
      // GIF carries no EXIF; for JPEG and PNG the orientation is applied before resizing.
      autoOrient: !animated,
    };
    if (animated) await this.assertFrameCount(sharp, input, options);
    const main = await this.resized(sharp(input, options), format, this.cfg.mainSize);
    // From the main rendition: already decoded-size, oriented and clean, so far cheaper.
    const thumbnail = await this.resized(
      sharp(main.data, { ...options, autoOrient: false }),
      format,
      this.cfg.thumbnailSize,
    );
    return { main, thumbnail };
  }

  /** From the header, before any frame is decoded. */
  private async assertFrameCount(
    sharp: typeof sharpModule,
    input: Buffer,
    options: SharpOptions,
  ): Promise<void> {
    const { pages = 1 } = await sharp(input, options).metadata();
    if (pages > this.cfg.maxFrames) throw new TooManyFramesError(this.cfg.maxFrames);
  }

  private async resized(image: Sharp, format: ImageFormat, size: number): Promise<Rendition> {
    // A pathological image within the pixel limit must not hold a job slot for long.
    const resized = image.timeout({ seconds: this.cfg.processingTimeoutSeconds }).resize({
      width: size,
      height: size,
      fit: 'inside',
      withoutEnlargement: true,
    });
    // sharp writes no EXIF, XMP, IPTC or ICC unless asked to (keepMetadata/withMetadata).
    const { data, info } = await encoder(resized, format).toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.pageHeight ?? info.height };
  }
}

function encoder(image: Sharp, format: ImageFormat): Sharp {
  switch (format) {
    case 'jpeg':
      return image.jpeg({ quality: 85 });
    case 'png':
      return image.png();
    case 'gif':
      return image.gif();
  }
}

class TooManyFramesError extends Error {
  constructor(readonly maxFrames: number) {
    super(`more than ${maxFrames} frames`);
  }
}

function toApiException(error: unknown, cfg: MediaConfig): unknown {
  if (error instanceof JobQueueFullError) {
    return ApiException.retryLater(
      'SERVICE_UNAVAILABLE',
      'Too many images are being processed; retry shortly',
      1,
    );
  }
  return new ApiException('INVALID_IMAGE', invalidImageReason(error, cfg));
}

// libvips' own wording stays in the server: clients get the reason docs/media.md gives.
function invalidImageReason(error: unknown, cfg: MediaConfig): string {
  if (error instanceof TooManyFramesError) {
    return `The animation has more than ${error.maxFrames} frames`;
  }
  const message = messageOf(error);
  if (message.includes('pixel limit')) {
    return `The image exceeds ${cfg.maxInputPixels / 1_000_000} megapixels`;
  }
  // sharp's timeout: an image this costly to decode is refused like one too large.
  if (message.startsWith('timeout')) {
    return `The image takes over ${cfg.processingTimeoutSeconds} s to process`;
  }
  return 'The image could not be decoded (corrupt, truncated or not a JPEG, PNG or GIF)';
}
