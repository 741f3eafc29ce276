import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { pngImage } from '../../support/images.js';
import { nodePost } from '../../support/node-client.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { uploadImage } from '../../support/uploads.js';
import { waitFor } from '../../support/wait.js';

jest.setTimeout(60_000);

// The smallest budget allowed: one largest upload (5 MB plus 64 kB of form envelope).
const BUDGET = 5 * 1024 * 1024 + 64 * 1024;
const HELD_BYTES = BUDGET - 8 * 1024;

/** An animated GIF of `frames` solid frames, each a different colour from the last. */
function animation(frames: number, size: number): Promise<Buffer> {
  const pages = Array.from({ length: frames }, (_, i) =>
    Buffer.alloc(size * size * 3, (i * 37) % 256),
  );
  return sharp(Buffer.concat(pages), {
    raw: { width: size, height: size * frames, channels: 3, pageHeight: size },
  })
    .gif({ delay: Array<number>(frames).fill(50) })
    .toBuffer();
}

/** 100×100 of noise: about 30 kB as PNG, more than the budget has left beside a held upload. */
function noisyPng(): Promise<Buffer> {
  return sharp({
    create: {
      width: 100,
      height: 100,
      channels: 3,
      background: { r: 0, g: 0, b: 0 },
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
}

describe('Media (e2e, memory and processing bounds)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp({
      MEDIA_MAX_BUFFERED_BYTES: String(BUDGET),
      MEDIA_PROCESSING_TIMEOUT_SECONDS: '1',
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /**
   * An upload announcing `bytes` that sends its first few and then waits, as a slow client
   * does, until `signal` aborts it.
   */
  function trickledUpload(petId: number, bytes: number, signal: AbortSignal) {
    const boundary = 'trickle';
    return nodePost(
      port,
      `/v1/pets/${petId}/upload-image`,
      { ...t.user, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      ),
      { contentLength: bytes, signal },
    );
  }

  it('should refuse an upload 503 with Retry-After while others hold the buffer budget, and take it once they are done', async () => {
    const petId = await createPet(t);
    const image = await noisyPng();
    expect(image.length).toBeGreaterThan(BUDGET - HELD_BYTES);
    const held = new AbortController();
    const holding = trickledUpload(petId, HELD_BYTES, held.signal);

    let refused: Awaited<ReturnType<typeof uploadImage>> | undefined;
    await waitFor(async () => {
      const res = await uploadImage(t, petId, image, { contentType: 'image/png' });
      if (res.status === 503) refused = res;
      return refused !== undefined;
    });
    expect(refused!.body).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'Too many uploads are in progress; retry shortly',
    });
    expect(refused!.headers['retry-after']).toBe('1');
    // Small uploads still fit beside the held one.
    await uploadImage(t, petId, await pngImage(10, 10), { contentType: 'image/png' }).expect(201);

    held.abort();
    await holding;
    await waitFor(
      async () => (await uploadImage(t, petId, image, { contentType: 'image/png' })).status === 201,
    );
  });

  it('should refuse an animated GIF of more than 500 frames 400 INVALID_IMAGE', async () => {
    const petId = await createPet(t);

    const res = await uploadImage(t, petId, await animation(501, 4), {
      contentType: 'image/gif',
    });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'INVALID_IMAGE',
      message: 'The animation has more than 500 frames',
    });
  });

  it('should refuse 400 INVALID_IMAGE an image whose processing outlasts the timeout', async () => {
    const petId = await createPet(t);
    // 500 frames of 280×280 (39 MP in all, 200 kB): within every other limit, seconds of work.
    const gif = await animation(500, 280);

    const res = await uploadImage(t, petId, gif, { contentType: 'image/gif' });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'INVALID_IMAGE',
      message: 'The image takes over 1 s to process',
    });
    await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200, { images: [] });
  });
});
