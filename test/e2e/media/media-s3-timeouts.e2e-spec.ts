import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { MediaGc } from '../../../src/media/media-gc.js';
import { MediaRepository } from '../../../src/media/media.repository.js';
import { MEDIA_STORAGE, type MediaStorage } from '../../../src/media/storage/media-storage.js';
import {
  startBlackHoleServer,
  startUnacceptingServer,
  type BlackHoleServer,
  type UnacceptingServer,
} from '../../support/black-hole-server.js';
import { pngImage } from '../../support/images.js';
import { createPet } from '../../support/pets.js';
import { startS3Server, type S3TestServer } from '../../support/s3-server.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { testLogs, type LogLine } from '../../support/test-logs.js';
import { keyOf, uploadImage } from '../../support/uploads.js';
import { waitFor } from '../../support/wait.js';

jest.setTimeout(60_000);

const REQUEST_TIMEOUT_MS = 1_000;
// The SDK makes 3 attempts, each bounded by the timeout, with short back-offs between them.
const WORST_CASE_MS = 3 * REQUEST_TIMEOUT_MS + 3_000;

describe('Media (e2e, a bucket that accepts connections and never answers)', () => {
  let s3: S3TestServer;
  let hole: BlackHoleServer;
  let client: S3Client;
  let t: TestApp;

  const s3Port = () => Number(new URL(s3.endpoint).port);
  const timed = async <T>(work: () => PromiseLike<T>) => {
    const started = performance.now();
    const result = await work();
    return { result, ms: performance.now() - started };
  };

  /** A 503's two warnings, which an operator reads: the error's, naming the storage, and the request's. */
  async function expectStorageWarnings(requestId: string): Promise<void> {
    const lines: LogLine[] = [];
    await waitFor(() => {
      lines.push(...testLogs.take((line) => line.requestId === requestId));
      return Promise.resolve(lines.length >= 2);
    });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: expect.stringContaining('Image storage is unavailable'),
      }),
      expect.objectContaining({ level: 'warn', status: 503 }),
    ]);
  }

  async function storedImage(): Promise<{ petId: number; key: string }> {
    const petId = await createPet(t);
    const res = await uploadImage(t, petId, await pngImage(20, 20), {
      contentType: 'image/png',
    }).expect(201);
    return { petId, key: keyOf(res.body.imageUrl as string) };
  }

  beforeAll(async () => {
    s3 = await startS3Server();
    hole = await startBlackHoleServer();
    client = s3.client();
    t = await createTestApp({
      ...s3.env,
      S3_ENDPOINT: hole.endpoint,
      S3_CONNECT_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      S3_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      // The clean-up's failures are warnings.
      LOG_LEVEL: 'warn',
    });
  });
  beforeEach(() => hole.forwardTo(s3Port()));
  afterAll(async () => {
    hole.forwardTo(s3Port());
    await t.close();
    client.destroy();
    await hole.stop();
    await s3.stop();
  });

  it('should answer an upload 503 with Retry-After once the timeouts fire, and leave the pet unchanged', async () => {
    const petId = await createPet(t);
    const before = await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200);
    const image = await pngImage(20, 20);
    hole.forwardTo(undefined);
    const accepted = hole.accepted;

    const { result: res, ms } = await timed(() =>
      uploadImage(t, petId, image, { contentType: 'image/png' }),
    );

    expect(hole.accepted).toBeGreaterThan(accepted);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', requestId: expect.any(String) });
    expect(res.headers['retry-after']).toBe('5');
    expect(ms).toBeLessThan(WORST_CASE_MS);
    await expectStorageWarnings(res.body.requestId as string);
    hole.forwardTo(s3Port());
    const after = await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200);
    expect(after.body).toEqual(before.body);
    await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200, { images: [] });
  });

  it('should answer /media reads 503 with Retry-After, with and without If-None-Match', async () => {
    const { key } = await storedImage();
    const served = await t.http.get(`/media/${key}`).expect(200);
    hole.forwardTo(undefined);

    const { result: read, ms } = await timed(() => t.http.get(`/media/${key}`));
    const conditional = await t.http.get(`/media/${key}`).set('If-None-Match', served.headers.etag);

    for (const res of [read, conditional]) {
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('5');
      await expectStorageWarnings(res.body.requestId as string);
    }
    expect(ms).toBeLessThan(WORST_CASE_MS);
  });

  it('should delete a pet without waiting for the bucket, whose clean-up failure is logged and left behind', async () => {
    const { petId, key } = await storedImage();
    hole.forwardTo(undefined);
    const cleanUpFailures: LogLine[] = [];
    const takeCleanUpFailures = () =>
      cleanUpFailures.push(
        ...testLogs.take((line) => line.msg?.startsWith('Could not delete media ') === true),
      );

    const res = await t.http.delete(`/v1/pets/${petId}`).set(t.user);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    // The clean-up logs its failure before it ends, after at least three request timeouts.
    takeCleanUpFailures();
    expect(cleanUpFailures).toEqual([]);
    await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(404);
    await waitFor(() => Promise.resolve(takeCleanUpFailures() > 0), 4 * WORST_CASE_MS);
    expect(cleanUpFailures).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: expect.stringMatching(
          new RegExp(`^Could not delete media ${key}; npm run cli -- media-gc removes it later: `),
        ),
      }),
    );
    await expect(
      client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })),
    ).resolves.toMatchObject({ $metadata: { httpStatusCode: 200 } });

    // What the clean-up left behind, media-gc finds in the bucket and removes.
    hole.forwardTo(s3Port());
    const gc = new MediaGc(t.app.get(MediaRepository), t.app.get<MediaStorage>(MEDIA_STORAGE));
    const lines: string[] = [];
    const result = await gc.run({ delete: true, minAgeMs: 0 }, (line) => lines.push(line));
    expect(result.deleted).toBeGreaterThanOrEqual(2);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^deleted ${key} `)));
    await expect(
      client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })),
    ).rejects.toMatchObject({ name: 'NotFound' });
  });
});

describe('Media (e2e, a bucket host whose connections are never established)', () => {
  const CONNECT_TIMEOUT_MS = 500;
  let s3: S3TestServer;
  let server: UnacceptingServer;
  let t: TestApp;

  beforeAll(async () => {
    s3 = await startS3Server();
    server = await startUnacceptingServer();
    t = await createTestApp({
      ...s3.env,
      S3_ENDPOINT: server.endpoint,
      S3_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      // Far longer than the test may take: only the connect timeout can end the wait.
      S3_REQUEST_TIMEOUT_MS: '120000',
    });
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
    await s3.stop();
  });

  it('should answer an upload 503 with Retry-After once the connect timeout fires', async () => {
    const petId = await createPet(t);
    const started = performance.now();

    const res = await uploadImage(t, petId, await pngImage(20, 20), { contentType: 'image/png' });

    expect(res.status).toBe(503);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('5');
    expect(performance.now() - started).toBeLessThan(3 * CONNECT_TIMEOUT_MS + 3_000);
  });
});
