import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { AppProcess } from '../../support/app-process.js';
import { startBlackHoleServer, type BlackHoleServer } from '../../support/black-hole-server.js';
import { expectError } from '../../support/errors.js';
import { pngImage } from '../../support/images.js';
import { createPet } from '../../support/pets.js';
import { startS3Server, type S3TestServer } from '../../support/s3-server.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { uploadImage } from '../../support/uploads.js';
import { waitFor } from '../../support/wait.js';

jest.setTimeout(60_000);

const KEY = 'Idempotency-Key';

describe('Idempotency-Key while the first request runs (e2e, a bucket that hangs)', () => {
  let s3: S3TestServer;
  let hole: BlackHoleServer;
  let t: TestApp;

  const s3Port = () => Number(new URL(s3.endpoint).port);

  beforeAll(async () => {
    s3 = await startS3Server();
    hole = await startBlackHoleServer();
    hole.forwardTo(s3Port());
    t = await createTestApp({
      ...s3.env,
      S3_ENDPOINT: hole.endpoint,
      S3_CONNECT_TIMEOUT_MS: '1000',
      S3_REQUEST_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await hole?.stop();
    await s3?.stop();
  });

  it('should answer 409 IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After while the first runs, and let a retry run once its 503 released the key', async () => {
    const petId = await createPet(t);
    const image = await pngImage(20, 20);
    const key = `upload-${randomUUID()}`;
    const upload = () => uploadImage(t, petId, image, { contentType: 'image/png' }).set(KEY, key);
    hole.forwardTo(undefined);
    const accepted = hole.accepted;

    // Held at the bucket, which it reaches only after claiming the key.
    const first = upload().then((res) => res);
    await waitFor(() => Promise.resolve(hole.accepted > accepted));
    const meanwhile = await upload();

    expectError(meanwhile, 409, 'IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(meanwhile.headers['retry-after']).toBe('1');
    const failed = await first;
    expectError(failed, 503, 'SERVICE_UNAVAILABLE');

    hole.forwardTo(s3Port());
    const retry = await upload();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const again = await upload();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(retry.body);
    const images = await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200);
    expect(images.body.images).toHaveLength(1);
  });
});

// Two processes of the built service on one PostgreSQL database: PGlite has one process.
const withServer = process.env.DATABASE_URL ? describe : describe.skip;

withServer('Idempotency-Key across two instances (e2e, PostgreSQL)', () => {
  let database: TestDatabase;
  let first: AppProcess;
  let second: AppProcess;

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await AppProcess.start(database.env);
    second = await AppProcess.start(database.env);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await database?.drop();
  });

  it('should create one pet per key when both instances get the same request at once', async () => {
    const json = { 'content-type': 'application/json' };
    const category = await first.fetch('/v1/categories', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: `Raced ${randomUUID()}` }),
    });
    const { id: categoryId, name } = (await category.json()) as { id: number; name: string };
    const rounds = 10;

    for (let round = 0; round < rounds; round += 1) {
      const init = {
        method: 'POST',
        headers: { ...json, [KEY]: `race-${round}-${randomUUID()}` },
        body: JSON.stringify({ name: `Pet ${round}`, categoryId, status: 'available' }),
      };
      const answers = await Promise.all(
        [first, second].map(async (app) => {
          const res = await app.fetch('/v1/pets', init);
          return {
            status: res.status,
            replayed: res.headers.get('idempotent-replayed'),
            retryAfter: res.headers.get('retry-after'),
            body: (await res.json()) as { id?: number; code?: string },
          };
        }),
      );

      const created = answers.filter((a) => a.status === 201 && a.replayed === null);
      expect(created).toHaveLength(1);
      const [other] = answers.filter((a) => a !== created[0]);
      if (other.status === 201) {
        expect(other).toMatchObject({ replayed: 'true', body: created[0].body });
      } else {
        expect(other).toMatchObject({
          status: 409,
          retryAfter: '1',
          body: { code: 'IDEMPOTENCY_KEY_IN_PROGRESS' },
        });
      }
    }

    const list = await second.fetch(`/v1/pets?category=${encodeURIComponent(name)}`);
    expect(((await list.json()) as { pagination: { total: number } }).pagination.total).toBe(
      rounds,
    );
  });
});
