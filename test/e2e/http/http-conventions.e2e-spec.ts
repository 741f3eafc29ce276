import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('HTTP conventions (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('X-Request-Id', () => {
    it('should give every response a new UUID when none is sent', async () => {
      const res = await t.http.get('/v1/categories').set(t.user);
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    it('should echo a well-formed incoming id, in the header and in error bodies', async () => {
      const res = await t.http.get('/v1/nowhere').set(t.user).set('X-Request-Id', 'trace-123.abc');
      expect(res.headers['x-request-id']).toBe('trace-123.abc');
      expect(res.body.requestId).toBe('trace-123.abc');
    });

    it('should replace a malformed incoming id', async () => {
      const res = await t.http
        .get('/v1/categories')
        .set(t.user)
        .set('X-Request-Id', 'bad id<script>');
      expect(res.headers['x-request-id']).toMatch(UUID);
    });
  });

  describe('request bodies', () => {
    it('should refuse a POST without Content-Type with 415', async () => {
      const res = await t.http.post('/v1/categories').set(t.admin);
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('should refuse a POST with a non-JSON Content-Type with 415', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .set('Content-Type', 'text/plain')
        .send('name=Dogs');
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('should refuse a PUT with a form Content-Type with 415', async () => {
      const res = await t.http.put('/v1/pets/1').set(t.user).type('form').send({ name: 'x' });
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('should accept application/json with a charset parameter', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .set('Content-Type', 'application/json; charset=utf-8')
        .send(JSON.stringify({ name: 'Charset' }));
      expect(res.status).toBe(201);
    });

    it('should answer malformed JSON with 400 INVALID_JSON', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .set('Content-Type', 'application/json')
        .send('{"name": ');
      expectError(res, 400, 'INVALID_JSON');
    });

    it('should answer a JSON body over 100 kB with 413 PAYLOAD_TOO_LARGE', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .send({ name: 'Big', description: 'x'.repeat(101 * 1024) });
      expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('should refuse a body that is JSON but not an object', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .set('Content-Type', 'application/json')
        .send('"just a string"');
      expect(res.status).toBe(400);
    });
  });

  describe('routing', () => {
    it('should answer an unknown route with 404 NOT_FOUND', async () => {
      expectError(await t.http.get('/v1/unicorns').set(t.user), 404, 'NOT_FOUND');
    });

    it('should answer a path outside /v1 with 404 NOT_FOUND', async () => {
      expectError(await t.http.get('/pets').set(t.user), 404, 'NOT_FOUND');
    });

    it('should answer a known route with a wrong method with 405 and an Allow header', async () => {
      const res = await t.http.patch('/v1/pets/1').set(t.user).send({ name: 'x' });
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.allow).toBe('DELETE, GET, HEAD, PUT');
    });

    it('should list POST among the allowed methods of a collection', async () => {
      const res = await t.http.delete('/v1/categories').set(t.admin);
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.allow).toBe('GET, HEAD, POST');
    });
  });

  describe('error bodies', () => {
    it('should carry code, message, details and requestId, and nothing internal', async () => {
      const res = await t.http.post('/v1/pets').set(t.user).send({ name: 'x' });
      expect(res.body).toEqual({
        code: 'VALIDATION_ERROR',
        message: expect.any(String),
        details: {
          fields: expect.arrayContaining([
            { field: 'categoryId', message: expect.any(String) },
            { field: 'status', message: expect.any(String) },
          ]),
        },
        requestId: res.headers['x-request-id'],
      });
    });

    it('should answer a conflict without leaking SQL or driver text', async () => {
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Unique' }).expect(201);
      const res = await t.http.post('/v1/categories').set(t.admin).send({ name: 'unique' });
      expectError(res, 409, 'CONFLICT');
      expect(JSON.stringify(res.body)).not.toMatch(/duplicate key|constraint|UQ_|SELECT|INSERT/i);
    });
  });
});
