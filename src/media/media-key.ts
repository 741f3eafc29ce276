import { randomBytes } from 'node:crypto';
import { CONTENT_TYPES, EXTENSIONS, type ImageFormat } from './processing/image-format.js';

/**
 * 128 random bits in hex plus the format's extension. Being the whole grammar of a key,
 * this pattern is also what makes path traversal impossible: no dot-dot, no slash.
 */
export const MEDIA_KEY_PATTERN = /^[0-9a-f]{32}\.(?:jpg|png|gif)$/;

export function newMediaKey(format: ImageFormat): string {
  return `${randomBytes(16).toString('hex')}.${EXTENSIONS[format]}`;
}

export function isMediaKey(value: string): boolean {
  return MEDIA_KEY_PATTERN.test(value);
}

export function contentTypeOfKey(key: string): string {
  const extension = key.slice(key.lastIndexOf('.') + 1);
  const format = (Object.keys(EXTENSIONS) as ImageFormat[]).find(
    (f) => EXTENSIONS[f] === extension,
  );
  return format ? CONTENT_TYPES[format] : 'application/octet-stream';
}

/**
 * Stored objects never change under their key, so the key's random part identifies the
 * bytes exactly: a strong validator without hashing the file on every request.
 */
export function etagOfKey(key: string): string {
  return `"${key.slice(0, key.indexOf('.'))}"`;
}
