import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  animatedGif,
  hasGpsIfd,
  jpegImage,
  jpegWithExif,
  pngBomb,
  pngImage,
  svgImage,
  tiffImage,
  webpImage,
} from '../../support/images.js';
import { nodePost } from '../../support/node-client.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { filesUnder, keyOf, uploadImage } from '../../support/uploads.js';
import { waitFor } from '../../support/wait.js';

jest.setTimeout(60_000);

const FIVE_MB = 5 * 1024 * 1024;
const MEDIA_URL = /^http:\/\/127\.0\.0\.1:\d+\/media\/[0-9a-f]{32}\.(jpg|png|gif)$/;

describe('Media (e2e, local storage)', () => {
  let t: TestApp;
  let mediaDir: string;

  const storedPath = (key: string) => join(mediaDir, key.slice(0, 2), key);
  const stored = (url: string) => readFile(storedPath(keyOf(url)));

  async function imagesOf(petId: number) {
    const res = await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200);
    return res.body.images as { url: string; thumbnailUrl: string }[];
  }

  async function expectRefused(
    petId: number,
    image: Buffer,
    status: number,
    code: string,
    options = {},
  ) {
    const before = await filesUnder(mediaDir);
    const res = await uploadImage(t, petId, image, options);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code, requestId: expect.any(String) });
    expect(await filesUnder(mediaDir)).toEqual(before);
    return res;
  }

  beforeAll(async () => {
    mediaDir = await mkdtemp(join(tmpdir(), 'petstore-media-'));
    t = await createTestApp({ MEDIA_DIR: mediaDir });
    // One listening address for the whole file, so that URLs built from the request's host
    // stay the same from one request to the next.
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await t.close();
    await rm(mediaDir, { recursive: true, force: true });
  });

  describe('POST /v1/pets/{petId}/upload-image', () => {
    it('should apply the EXIF orientation and strip all metadata, GPS included', async () => {
      const petId = await createPet(t);
      const original = await jpegWithExif(200, 100);
      const input = await sharp(original).metadata();
      expect(input).toMatchObject({ orientation: 6, width: 200, height: 100 });
      expect(hasGpsIfd(input.exif)).toBe(true);

      const res = await uploadImage(t, petId, original, { description: 'Rex, sideways' });

      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        message: 'Image uploaded',
        imageUrl: expect.stringMatching(MEDIA_URL),
      });
      const file = await stored(res.body.imageUrl);
      const output = await sharp(file).metadata();
      expect(output).toMatchObject({ format: 'jpeg', width: 100, height: 200 });
      expect(output.exif).toBeUndefined();
      expect(output.orientation).toBeUndefined();
      expect(output.icc).toBeUndefined();
      expect(output.xmp).toBeUndefined();
      expect(file.includes(Buffer.from('Exif\0'))).toBe(false);
      expect(file.includes(Buffer.from('PetCam'))).toBe(false);
    });

    it('should append the image URL to the pet and list the image with its thumbnail', async () => {
      const petId = await createPet(t, { photoUrls: ['https://example.com/a.jpg'] });
      const res = await uploadImage(t, petId, await pngImage(3000, 2000), {
        filename: 'big.png',
        contentType: 'image/png',
        description: 'd'.repeat(500),
      }).expect(201);

      const pet = await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200);
      expect(pet.body.photoUrls).toEqual(['https://example.com/a.jpg', res.body.imageUrl]);
      const list = await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200);
      const main = await stored(res.body.imageUrl);
      expect(list.body).toEqual({
        images: [
          {
            id: expect.any(Number),
            url: res.body.imageUrl,
            thumbnailUrl: expect.stringMatching(MEDIA_URL),
            description: 'd'.repeat(500),
            width: 1024,
            height: 683,
            format: 'png',
            bytes: main.length,
            createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          },
        ],
      });
      expect(await sharp(main).metadata()).toMatchObject({
        format: 'png',
        width: 1024,
        height: 683,
      });
      const thumbnail = await stored(list.body.images[0].thumbnailUrl);
      expect(await sharp(thumbnail).metadata()).toMatchObject({
        format: 'png',
        width: 256,
        height: 171,
      });
    });

    it('should never enlarge a small image', async () => {
      const petId = await createPet(t);
      await uploadImage(t, petId, await pngImage(200, 100), { contentType: 'image/png' }).expect(
        201,
      );
      const [image] = await imagesOf(petId);
      expect(await sharp(await stored(image.url)).metadata()).toMatchObject({
        width: 200,
        height: 100,
      });
      expect(await sharp(await stored(image.thumbnailUrl)).metadata()).toMatchObject({
        width: 200,
        height: 100,
      });
    });

    it('should keep an animated GIF animated in both renditions', async () => {
      const petId = await createPet(t);
      await uploadImage(t, petId, await animatedGif(600, 400, 3), {
        filename: 'wag.gif',
        contentType: 'image/gif',
      }).expect(201);
      const [image] = await imagesOf(petId);
      const main = await sharp(await stored(image.url), { animated: true }).metadata();
      expect(main).toMatchObject({ format: 'gif', pages: 3, width: 600, pageHeight: 400 });
      expect(main.delay).toEqual([100, 100, 100]);
      const thumbnail = await sharp(await stored(image.thumbnailUrl), {
        animated: true,
      }).metadata();
      expect(thumbnail).toMatchObject({ format: 'gif', pages: 3, width: 256, pageHeight: 171 });
    });

    it('should accept a file of exactly 5 MB', async () => {
      const petId = await createPet(t);
      const jpeg = await jpegImage(400, 300);
      // Bytes after the JPEG's end-of-image marker are ignored by decoders.
      const exactly = Buffer.concat([jpeg, Buffer.alloc(FIVE_MB - jpeg.length)]);
      expect(exactly.length).toBe(FIVE_MB);
      await uploadImage(t, petId, exactly).expect(201);
    });

    it('should answer 400 VALIDATION_ERROR when the image is missing', async () => {
      const petId = await createPet(t);
      const res = await t.http
        .post(`/v1/pets/${petId}/upload-image`)
        .set(t.user)
        .field('description', 'no file')
        .expect(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { fields: [{ field: 'image', message: expect.any(String) }] },
      });
    });

    it('should list every failing field: a missing image, a long description, an unknown field', async () => {
      const petId = await createPet(t);
      const res = await t.http
        .post(`/v1/pets/${petId}/upload-image`)
        .set(t.user)
        .field('description', 'x'.repeat(501))
        .field('role', 'admin')
        .expect(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      const fields = (res.body.details.fields as { field: string }[]).map((f) => f.field);
      expect(fields.sort()).toEqual(['description', 'image', 'role']);
    });

    it('should answer 400 VALIDATION_ERROR for a description over 500 characters', async () => {
      const petId = await createPet(t);
      const res = await expectRefused(petId, await jpegImage(50, 50), 400, 'VALIDATION_ERROR', {
        description: 'x'.repeat(501),
      });
      expect(res.body.details.fields).toEqual([
        { field: 'description', message: expect.any(String) },
      ]);
    });

    it('should answer 400 VALIDATION_ERROR for a second file', async () => {
      const petId = await createPet(t);
      const jpeg = await jpegImage(50, 50);
      const res = await t.http
        .post(`/v1/pets/${petId}/upload-image`)
        .set(t.user)
        .attach('image', jpeg, 'a.jpg')
        .attach('image', jpeg, 'b.jpg')
        .expect(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { fields: [{ field: 'image' }] },
      });
    });

    it('should answer 400 VALIDATION_ERROR for a malformed multipart body', async () => {
      const petId = await createPet(t);
      const res = await t.http
        .post(`/v1/pets/${petId}/upload-image`)
        .set(t.user)
        .set('Content-Type', 'multipart/form-data; boundary=xyz')
        .send('--xyz\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\nabc')
        .expect(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });

    it('should answer 415 for a text file named x.png', async () => {
      const petId = await createPet(t);
      await expectRefused(petId, Buffer.from('just some text\n'), 415, 'UNSUPPORTED_MEDIA_TYPE', {
        filename: 'x.png',
        contentType: 'image/png',
      });
    });

    it('should answer 415 for SVG, WebP and TIFF images', async () => {
      const petId = await createPet(t);
      for (const [image, filename] of [
        [svgImage, 'x.svg'],
        [await webpImage(), 'x.webp'],
        [await tiffImage(), 'x.tiff'],
      ] as const) {
        await expectRefused(petId, image, 415, 'UNSUPPORTED_MEDIA_TYPE', {
          filename,
          contentType: 'image/png',
        });
      }
    });

    it('should answer 415 for a polyglot: a PNG with an archive appended', async () => {
      const petId = await createPet(t);
      const polyglot = Buffer.concat([await pngImage(50, 50), Buffer.from('PK\x03\x04payload')]);
      await expectRefused(petId, polyglot, 415, 'UNSUPPORTED_MEDIA_TYPE', {
        contentType: 'image/png',
      });
    });

    it('should answer 400 INVALID_IMAGE for a truncated JPEG', async () => {
      const petId = await createPet(t);
      const jpeg = await jpegImage(800, 600);
      await expectRefused(
        petId,
        jpeg.subarray(0, Math.floor(jpeg.length * 0.6)),
        400,
        'INVALID_IMAGE',
      );
    });

    it('should refuse a decompression bomb (16000×16000 PNG) as INVALID_IMAGE in milliseconds', async () => {
      const petId = await createPet(t);
      const bomb = pngBomb(16_000, 16_000);
      expect(bomb.length).toBeLessThan(400_000);
      const started = performance.now();
      const res = await expectRefused(petId, bomb, 400, 'INVALID_IMAGE', {
        contentType: 'image/png',
      });
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(res.body.message).toContain('40 megapixels');
    });

    it('should answer 413 for 5 MB + 1 byte', async () => {
      const petId = await createPet(t);
      const jpeg = await jpegImage(400, 300);
      const oversized = Buffer.concat([jpeg, Buffer.alloc(FIVE_MB + 1 - jpeg.length)]);
      const res = await expectRefused(petId, oversized, 413, 'PAYLOAD_TOO_LARGE');
      expect(res.headers.connection).toBe('close');
    });

    it('should answer 413 and close the connection without reading an announced huge body', async () => {
      const petId = await createPet(t);
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      // Only the first 64 kB of the announced gigabyte are ever sent: the request is over
      // (its socket closed) only if the service gives up on the rest.
      const answer = await nodePost(
        port,
        `/v1/pets/${petId}/upload-image`,
        { ...t.user, 'Content-Type': 'multipart/form-data; boundary=b' },
        Buffer.alloc(64 * 1024),
        { contentLength: 1024 * 1024 * 1024 },
      );
      expect(answer.status).toBe(413);
      expect(answer.headers?.connection).toBe('close');
    });

    it('should answer 415 for a JSON body', async () => {
      const petId = await createPet(t);
      const res = await t.http
        .post(`/v1/pets/${petId}/upload-image`)
        .set(t.user)
        .send({ image: 'aGVsbG8=' })
        .expect(415);
      expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('should answer 404 PET_NOT_FOUND for an unknown pet and store nothing', async () => {
      const res = await expectRefused(999_999, await jpegImage(50, 50), 404, 'PET_NOT_FOUND');
      expect(res.body.message).toContain('999999');
    });

    it('should answer 400 for a malformed pet id', async () => {
      await expectRefused(0, await jpegImage(50, 50), 400, 'VALIDATION_ERROR');
    });

    it('should answer 409 CONFLICT when the pet already has 20 photo URLs', async () => {
      const photoUrls = Array.from({ length: 20 }, (_, i) => `https://example.com/${i}.jpg`);
      const petId = await createPet(t, { photoUrls });
      const res = await expectRefused(petId, await jpegImage(50, 50), 409, 'CONFLICT');
      expect(res.body.details).toMatchObject({ field: 'photoUrls' });
    });

    it('should remove the stored files of an upload whose pet update fails', async () => {
      // Two uploads race for the last free photo slot: both pass the early check, one loses
      // in the database and must take its renditions with it.
      const photoUrls = Array.from({ length: 19 }, (_, i) => `https://example.com/${i}.jpg`);
      const petId = await createPet(t, { photoUrls });
      const before = await filesUnder(mediaDir);
      const image = await jpegImage(2000, 1500);
      const results = await Promise.all([
        uploadImage(t, petId, image),
        uploadImage(t, petId, image),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      const [kept] = await imagesOf(petId);
      const added = (await filesUnder(mediaDir)).filter((f) => !before.includes(f));
      expect(added.sort()).toEqual(
        [keyOf(kept.url), keyOf(kept.thumbnailUrl)].map((k) => join(k.slice(0, 2), k)).sort(),
      );
    });
  });

  describe('GET /v1/pets/{petId}/images', () => {
    it('should answer 404 PET_NOT_FOUND for an unknown pet', async () => {
      const res = await t.http.get('/v1/pets/987654/images').set(t.user).expect(404);
      expect(res.body.code).toBe('PET_NOT_FOUND');
    });

    it('should list nothing for a pet without images', async () => {
      const petId = await createPet(t);
      await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200, { images: [] });
    });
  });

  describe('GET /media/{key}', () => {
    it('should serve the stored bytes without credentials, cacheable and never sniffed', async () => {
      const petId = await createPet(t);
      const upload = await uploadImage(t, petId, await jpegImage(300, 200)).expect(201);
      const path = new URL(upload.body.imageUrl).pathname;

      const res = await t.http.get(path).buffer(true).expect(200);

      expect(res.headers).toMatchObject({
        'content-type': 'image/jpeg',
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        etag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
      });
      expect(Buffer.compare(res.body as Buffer, await stored(upload.body.imageUrl))).toBe(0);
      expect(Number(res.headers['content-length'])).toBe((res.body as Buffer).length);
    });

    it('should answer 304 when If-None-Match holds the ETag', async () => {
      const petId = await createPet(t);
      const upload = await uploadImage(t, petId, await pngImage(64, 64), {
        contentType: 'image/png',
      }).expect(201);
      const path = new URL(upload.body.imageUrl).pathname;
      const { headers } = await t.http.get(path).expect(200);

      const res = await t.http.get(path).set('If-None-Match', headers.etag).expect(304);

      expect(res.headers.etag).toBe(headers.etag);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.text ?? '').toBe('');
      await t.http.get(path).set('If-None-Match', '"something-else"').expect(200);
    });

    it('should answer 404 NOT_FOUND for an unknown key', async () => {
      const res = await t.http.get(`/media/${'0'.repeat(32)}.jpg`).expect(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', requestId: expect.any(String) });
    });

    it('should answer 404 to path traversal attempts', async () => {
      for (const path of [
        '/media/..%2F..%2Fpackage.json',
        '/media/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
        '/media/..%5C..%5Cpackage.json',
        '/media/....//package.json',
        `/media/${'a'.repeat(32)}.jpg%00.png`,
        `/media/${'A'.repeat(32)}.jpg`,
        '/media/ab/../../package.json',
      ]) {
        const res = await t.http.get(path);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(res.text).not.toContain('petstore-service');
      }
    });
  });

  describe('PUT /v1/pets/{petId} with photoUrls', () => {
    it('should delete the images whose URLs it drops, rows and files, and keep the others', async () => {
      const petId = await createPet(t);
      const kept = await uploadImage(t, petId, await jpegImage(40, 40)).expect(201);
      const dropped = await uploadImage(t, petId, await jpegImage(30, 30)).expect(201);
      const [, droppedImage] = await imagesOf(petId);
      const droppedKeys = [keyOf(droppedImage.url), keyOf(droppedImage.thumbnailUrl)];
      expect(droppedImage.url).toBe(dropped.body.imageUrl);
      const photoUrls = [kept.body.imageUrl as string, 'https://example.com/elsewhere.jpg'];

      const res = await t.http.put(`/v1/pets/${petId}`).set(t.user).send({ photoUrls }).expect(200);

      expect(res.body.photoUrls).toEqual(photoUrls);
      expect((await imagesOf(petId)).map((image) => image.url)).toEqual([kept.body.imageUrl]);
      await waitFor(async () =>
        (await filesUnder(mediaDir)).every((f) => !droppedKeys.some((k) => f.endsWith(k))),
      );
      for (const key of droppedKeys) await t.http.get(`/media/${key}`).expect(404);
      await t.http.get(`/media/${keyOf(kept.body.imageUrl as string)}`).expect(200);
    });

    it('should leave the images alone when photoUrls is not in the body', async () => {
      const petId = await createPet(t);
      await uploadImage(t, petId, await jpegImage(20, 20)).expect(201);

      await t.http.put(`/v1/pets/${petId}`).set(t.user).send({ name: 'Renamed' }).expect(200);

      expect(await imagesOf(petId)).toHaveLength(1);
    });
  });

  describe('DELETE /v1/pets/{petId}', () => {
    it("should delete the pet's stored images", async () => {
      const petId = await createPet(t);
      await uploadImage(t, petId, await jpegImage(100, 100)).expect(201);
      await uploadImage(t, petId, await animatedGif(50, 50, 2), {
        contentType: 'image/gif',
      }).expect(201);
      const images = await imagesOf(petId);
      const keys = images.flatMap((i) => [keyOf(i.url), keyOf(i.thumbnailUrl)]);
      expect(
        (await filesUnder(mediaDir)).filter((f) => keys.some((k) => f.endsWith(k))),
      ).toHaveLength(4);

      await t.http.delete(`/v1/pets/${petId}`).set(t.user).expect(200, {});

      // The files go after the answer, off the request path.
      await waitFor(async () =>
        (await filesUnder(mediaDir)).every((f) => !keys.some((k) => f.endsWith(k))),
      );
      for (const key of keys) await t.http.get(`/media/${key}`).expect(404);
      await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(404);
    });
  });
});
