import { deflateSync } from 'node:zlib';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';

/** Real images made on the fly, so that tests depend on no binary fixtures. */

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } });

/** A photo-like (poorly compressible) image, so sizes resemble camera output. */
const noisy = (width: number, height: number) =>
  sharp({
    create: {
      width,
      height,
      channels: 3,
      background: { r: 120, g: 140, b: 160 },
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  });

export function pngImage(width: number, height: number): Promise<Buffer> {
  return solid(width, height).png().toBuffer();
}

export function jpegImage(width: number, height: number): Promise<Buffer> {
  return noisy(width, height).jpeg({ quality: 90 }).toBuffer();
}

export function webpImage(): Promise<Buffer> {
  return solid(40, 30).webp().toBuffer();
}

export function tiffImage(): Promise<Buffer> {
  return solid(40, 30).tiff().toBuffer();
}

export const svgImage = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">' +
    '<script>alert(1)</script><rect width="100" height="100"/></svg>',
);

/** A camera-style JPEG: EXIF orientation 6 (rotate 90° clockwise to view) and a GPS block. */
export function jpegWithExif(width: number, height: number): Promise<Buffer> {
  return noisy(width, height)
    .jpeg({ quality: 90 })
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Make: 'PetCam', Model: 'Test' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '51/1 30/1 0/1',
        GPSLongitudeRef: 'W',
        GPSLongitude: '0/1 7/1 0/1',
      },
    })
    .toBuffer();
}

/** Whether an EXIF block holds a pointer to a GPS IFD (tag 0x8825), in either byte order. */
export function hasGpsIfd(exif: Buffer | undefined): boolean {
  if (!exif) return false;
  return exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]));
}

export async function animatedGif(width: number, height: number, frames = 3): Promise<Buffer> {
  const colours = [
    { r: 255, g: 0, b: 0 },
    { r: 0, g: 255, b: 0 },
    { r: 0, g: 0, b: 255 },
    { r: 255, g: 255, b: 0 },
  ];
  const pages = await Promise.all(
    Array.from({ length: frames }, (_, i) =>
      sharp({ create: { width, height, channels: 3, background: colours[i % colours.length] } })
        .raw()
        .toBuffer(),
    ),
  );
  return sharp(Buffer.concat(pages), {
    raw: { width, height: height * frames, channels: 3, pageHeight: height },
  })
    .gif({ delay: Array<number>(frames).fill(100), loop: 0 })
    .toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A decompression bomb: a valid grey PNG of width×height pixels whose zero rows deflate to
 * a few hundred kB (16000×16000 is 256 MB of pixels in about 250 kB).
 */
export function pngBomb(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const pixels = deflateSync(Buffer.alloc((width + 1) * height), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
