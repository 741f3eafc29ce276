export const IMAGE_FORMATS = ['jpeg', 'png', 'gif'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export const CONTENT_TYPES: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
};

export const EXTENSIONS: Record<ImageFormat, string> = { jpeg: 'jpg', png: 'png', gif: 'gif' };

/**
 * What the bytes are, not what the client says they are.
 * - `undefined`: not a JPEG, PNG or GIF at all (or one carrying another file: a polyglot).
 * - a format: the structure looks right as far as it goes; decoding decides the rest, so a
 *   truncated file of a known format still reaches the decoder and is refused there.
 */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (isJpeg(bytes)) return 'jpeg';
  if (isPng(bytes)) return 'png';
  if (isGif(bytes)) return 'gif';
  return undefined;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((byte, i) => bytes[at + i] === byte);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

// SOI, then the marker of a real first segment: APPn, DQT, SOF0/1/2, DHT, DRI or COM.
function isJpeg(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, [0xff, 0xd8, 0xff]) || bytes.length < 4) return false;
  const marker = bytes[3];
  return (
    (marker >= 0xe0 && marker <= 0xef) ||
    [0xdb, 0xc0, 0xc1, 0xc2, 0xc4, 0xdd, 0xfe].includes(marker)
  );
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const IHDR = [0, 0, 0, 13, ...ascii('IHDR')];
const IEND = ascii('IEND');

/**
 * Signature, then IHDR as the first chunk, then a walk over the chunk lengths: bytes after
 * IEND are another file riding along (a polyglot). A walk that runs off the end is a
 * truncated PNG and is left to the decoder.
 */
function isPng(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, PNG_SIGNATURE) || !startsWith(bytes, IHDR, 8)) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = PNG_SIGNATURE.length;
  while (offset + 8 <= bytes.length) {
    const length = view.getUint32(offset);
    const end = offset + 12 + length;
    if (startsWith(bytes, IEND, offset + 4)) return end === bytes.length;
    offset = end;
  }
  return true;
}

const GIF_TRAILER = 0x3b;
const GIF_EXTENSION = 0x21;
const GIF_IMAGE = 0x2c;

/**
 * Header and logical screen descriptor, then a walk over the blocks up to the trailer:
 * an unknown block or bytes after the trailer mean this is not (only) a GIF.
 */
function isGif(bytes: Uint8Array): boolean {
  if (!(startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a')))) return false;
  if (bytes.length < 13) return true;
  let offset = 13 + colourTableSize(bytes[10]);
  const skipSubBlocks = () => {
    while (offset < bytes.length && bytes[offset] !== 0) offset += bytes[offset] + 1;
    offset += 1;
  };
  while (offset < bytes.length) {
    switch (bytes[offset]) {
      case GIF_TRAILER:
        return offset + 1 === bytes.length;
      case GIF_EXTENSION:
        offset += 2;
        skipSubBlocks();
        break;
      case GIF_IMAGE:
        if (offset + 10 > bytes.length) return true;
        offset += 10 + colourTableSize(bytes[offset + 9]) + 1; // descriptor, table, LZW size
        skipSubBlocks();
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Size of the colour table announced by a GIF packed-fields byte. */
function colourTableSize(packed: number): number {
  return packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0;
}
