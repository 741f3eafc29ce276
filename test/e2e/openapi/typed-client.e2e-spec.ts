import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Middleware } from 'openapi-fetch';
import { createPetstoreClient, type operations, type Schemas } from '../../../client/index.js';
import { assertConforms, conformanceOf } from '../../support/conforming-agent.js';
import { jpegImage } from '../../support/images.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

type UploadForm = operations['uploadPetImage']['requestBody']['content']['multipart/form-data'];

/** Checks every response the typed client receives against the document, like t.http does. */
function conformanceMiddleware(t: TestApp): Middleware {
  const conformance = conformanceOf(t.app);
  return {
    async onResponse({ request, response }) {
      const text = await response.clone().text();
      const json = (response.headers.get('content-type') ?? '').startsWith('application/json');
      assertConforms(conformance, {
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        headers: Object.fromEntries(response.headers.entries()),
        contentType: response.headers.get('content-type') ?? undefined,
        body: json && text ? JSON.parse(text) : text,
        hasBody: text.length > 0,
      });
      return response;
    },
  };
}

describe('Typed client (e2e, over a listening socket)', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await createTestApp({}, { signIn: false });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t.close();
  });

  /** A client that sends the admin's bearer token (its answers checked against the document). */
  async function signedInAdmin() {
    const login = await createPetstoreClient({ baseUrl }).POST('/v1/auth/login', {
      body: { username: t.adminUser.username, password: t.adminUser.password },
    });
    const client = createPetstoreClient({
      baseUrl,
      headers: { Authorization: `Bearer ${login.data!.token}` },
    });
    client.use(conformanceMiddleware(t));
    return { client, user: login.data!.user };
  }

  it('should log in, create a category and a pet, move it through its statuses, upload an image and list', async () => {
    const anonymous = createPetstoreClient({ baseUrl });
    anonymous.use(conformanceMiddleware(t));
    const login = await anonymous.POST('/v1/auth/login', {
      body: { username: t.adminUser.username, password: t.adminUser.password },
    });
    expect(login.response.status).toBe(200);
    const token = login.data!.token;
    expect(login.data!.expiresIn).toBe(3600);

    const client = createPetstoreClient({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
    client.use(conformanceMiddleware(t));

    const category = await client.POST('/v1/categories', { body: { name: 'Typed dogs' } });
    expect(category.response.status).toBe(201);
    const categoryId = category.data!.id;

    const created = await client.POST('/v1/pets', {
      body: { name: 'Rex', categoryId, status: 'available', tags: ['friendly'] },
    });
    expect(created.response.status).toBe(201);
    const pet: Schemas['PetResponse'] = created.data!;
    expect(pet).toMatchObject({ name: 'Rex', category: { id: categoryId }, status: 'available' });
    const petId = pet.id;

    for (const status of ['pending', 'sold', 'available'] as const) {
      const moved = await client.PUT('/v1/pets/{petId}', {
        params: { path: { petId } },
        body: { status },
      });
      expect(moved.data?.status).toBe(status);
    }
    const refused = await client.PUT('/v1/pets/{petId}', {
      params: { path: { petId } },
      body: { status: 'sold' },
    });
    expect(refused.response.status).toBe(409);
    expect(refused.error?.code).toBe('INVALID_STATUS_TRANSITION');

    const form = new FormData();
    form.append(
      'image',
      new Blob([new Uint8Array(await jpegImage(64, 48))], { type: 'image/jpeg' }),
      'rex.jpg',
    );
    form.append('description', 'Rex at the beach');
    const upload = await client.POST('/v1/pets/{petId}/upload-image', {
      params: { path: { petId } },
      // The generated type describes the form's parts; FormData is how fetch sends them.
      body: form as unknown as UploadForm,
    });
    expect(upload.response.status).toBe(201);
    expect(upload.data!.imageUrl).toMatch(new RegExp(`^${baseUrl}/media/[0-9a-f]{32}\\.jpg$`));

    const images = await client.GET('/v1/pets/{petId}/images', { params: { path: { petId } } });
    expect(images.data!.images).toHaveLength(1);
    const media = await anonymous.GET('/media/{key}', {
      params: { path: { key: upload.data!.imageUrl.split('/').pop()! } },
      parseAs: 'blob',
    });
    expect(media.response.headers.get('content-type')).toBe('image/jpeg');

    const list = await client.GET('/v1/pets', {
      params: { query: { category: 'typed dogs', status: 'available', limit: 10 } },
    });
    expect(list.data!.pets.map((p) => p.id)).toEqual([petId]);
    expect(list.data!.pets[0].photoUrls).toEqual([upload.data!.imageUrl]);
    expect(list.data!.pagination).toEqual({ limit: 10, offset: 0, total: 1, hasMore: false });
  });

  it('should get 304 for If-None-Match holding the current ETag of a pet, a category and a user', async () => {
    const { client, user } = await signedInAdmin();
    const category = await client.POST('/v1/categories', { body: { name: 'Conditional cats' } });
    const categoryId = category.data!.id;
    const pet = await client.POST('/v1/pets', {
      body: { name: 'Tom', categoryId, status: 'available' },
    });
    const petId = pet.data!.id;
    const id = user.id;

    // Each read twice: as is, then with the ETag the first one answered.
    const reads = [
      (ifNoneMatch?: string) =>
        client.GET('/v1/pets/{petId}', {
          params: { path: { petId }, header: { 'If-None-Match': ifNoneMatch } },
        }),
      (ifNoneMatch?: string) =>
        client.GET('/v1/categories/{id}', {
          params: { path: { id: categoryId }, header: { 'If-None-Match': ifNoneMatch } },
        }),
      (ifNoneMatch?: string) =>
        client.GET('/v1/users/{id}', {
          params: { path: { id }, header: { 'If-None-Match': ifNoneMatch } },
        }),
    ];
    for (const read of reads) {
      const first = await read();
      expect(first.response.status).toBe(200);
      const etag = first.response.headers.get('etag')!;

      const again = await read(etag);

      expect(again.response.status).toBe(304);
      expect(again.data).toBeUndefined();
      expect(again.response.headers.get('etag')).toBe(etag);
    }
  });

  it('should subscribe a webhook and rotate its secret, a POST the client sends without a body', async () => {
    const { client } = await signedInAdmin();

    const created = await client.POST('/v1/webhooks', {
      body: { url: 'https://8.8.8.8/hooks', events: ['pet.status_changed'] },
    });
    expect(created.response.status).toBe(201);
    const rotated = await client.POST('/v1/webhooks/{webhookId}/rotate-secret', {
      params: { path: { webhookId: created.data!.id } },
    });

    expect(rotated.response.status).toBe(200);
    expect(rotated.data!.secret).toMatch(/^whsec_/);
    expect(rotated.data!.secret).not.toBe(created.data!.secret);
  });
});
