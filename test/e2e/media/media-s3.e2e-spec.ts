import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { hasGpsIfd, jpegWithExif, pngImage } from '../../support/images.js';
import { createPet } from '../../support/pets.js';
import { startS3Server, type S3TestServer } from '../../support/s3-server.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { keyOf, uploadImage } from '../../support/uploads.js';
import { waitFor } from '../../support/wait.js';

describe('Media (e2e, S3-compatible storage)', () => {
  let s3: S3TestServer;
  let client: S3Client;
  let t: TestApp;

  async function objectBytes(key: string): Promise<Buffer> {
    const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  }

  async function objectKeys(): Promise<string[]> {
    const listing = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    return (listing.Contents ?? []).map((object) => object.Key!).sort();
  }

  beforeAll(async () => {
    s3 = await startS3Server();
    client = s3.client();
    t = await createTestApp({ ...s3.env, PUBLIC_BASE_URL: 'https://pets.example.com/' });
  });
  afterAll(async () => {
    await t.close();
    client.destroy();
    await s3.stop();
  });

  it('should store both renditions in the bucket, oriented and without metadata', async () => {
    const petId = await createPet(t);
    const original = await jpegWithExif(200, 100);
    expect(hasGpsIfd((await sharp(original).metadata()).exif)).toBe(true);

    const res = await uploadImage(t, petId, original).expect(201);

    expect(res.body.imageUrl).toMatch(/^https:\/\/pets\.example\.com\/media\/[0-9a-f]{32}\.jpg$/);
    const { body } = await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200);
    const [image] = body.images as { url: string; thumbnailUrl: string }[];
    expect(await objectKeys()).toEqual([keyOf(image.url), keyOf(image.thumbnailUrl)].sort());
    const main = await sharp(await objectBytes(keyOf(image.url))).metadata();
    expect(main).toMatchObject({ format: 'jpeg', width: 100, height: 200 });
    expect(main.exif).toBeUndefined();
    const pet = await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200);
    expect(pet.body.photoUrls).toEqual([res.body.imageUrl]);
  });

  it('should serve an object from the bucket with its headers and answer 304 to its ETag', async () => {
    const petId = await createPet(t);
    const res = await uploadImage(t, petId, await pngImage(80, 40), {
      contentType: 'image/png',
    }).expect(201);
    const key = keyOf(res.body.imageUrl);

    const served = await t.http.get(`/media/${key}`).buffer(true).expect(200);

    expect(served.headers).toMatchObject({
      'content-type': 'image/png',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    });
    expect(Buffer.compare(served.body as Buffer, await objectBytes(key))).toBe(0);
    await t.http.get(`/media/${key}`).set('If-None-Match', served.headers.etag).expect(304);
    await t.http.get(`/media/${'f'.repeat(32)}.png`).expect(404);
  });

  it("should delete the pet's objects from the bucket with the pet", async () => {
    const petId = await createPet(t);
    const res = await uploadImage(t, petId, await pngImage(30, 30), {
      contentType: 'image/png',
    }).expect(201);
    const key = keyOf(res.body.imageUrl);

    await t.http.delete(`/v1/pets/${petId}`).set(t.user).expect(200, {});

    // The objects go after the answer, off the request path.
    await waitFor(() =>
      client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })).then(
        () => false,
        (error: { name?: string }) => error.name === 'NotFound',
      ),
    );
    await t.http.get(`/media/${key}`).expect(404);
  });

  it('should answer 503, leave the pet unchanged and report not ready when the bucket cannot be reached', async () => {
    const petId = await createPet(t);
    const before = await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200);
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.checks).toMatchObject({ storage: 'up' });
    await s3.stop();
    // A success is reused for up to a second, so the bucket's loss shows within that window.
    await waitFor(async () => (await t.http.get('/health/ready')).status === 503);
    const notReady = await t.http.get('/health/ready').expect(503);
    expect(notReady.body.details.checks).toMatchObject({ storage: 'down', database: 'up' });

    const res = await uploadImage(t, petId, await pngImage(30, 30), { contentType: 'image/png' });

    expect(res.status).toBe(503);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers['retry-after']).toBeDefined();
    const after = await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200);
    expect(after.body).toEqual(before.body);
    await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200, { images: [] });
  });
});
