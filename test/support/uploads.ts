import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestApp } from './test-app.js';

export interface UploadOptions {
  filename?: string;
  contentType?: string;
  description?: string;
}

/** A real multipart upload of `image` (and `description`, when given) for a pet. */
export function uploadImage(
  t: TestApp,
  petId: number | string,
  image: Buffer,
  options: UploadOptions = {},
) {
  const request = t.http
    .post(`/v1/pets/${petId}/upload-image`)
    .set(t.user)
    .attach('image', image, {
      filename: options.filename ?? 'photo.jpg',
      contentType: options.contentType ?? 'image/jpeg',
    });
  return options.description === undefined
    ? request
    : request.field('description', options.description);
}

export const keyOf = (url: string) => new URL(url).pathname.split('/').pop()!;

/** Every file under a directory, as relative paths. */
export async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(
    () => [],
  );
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1))
    .sort();
}
