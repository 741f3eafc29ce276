import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Logger } from 'pino';
import { ROOT_LOGGER } from '../../../src/logging/logging.module.js';
import { expectError, expectValidationError } from '../../support/errors.js';
import { pngImage } from '../../support/images.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { uploadImage } from '../../support/uploads.js';
import { waitFor } from '../../support/wait.js';

/**
 * docs/input.md, Refused whatever the field: strings with U+0000 and prototype keys are
 * refused as field errors, and nothing a client sends in a body makes the service fail (5xx).
 */
describe('Input safety (e2e)', () => {
  let t: TestApp;
  let categoryId: number;

  beforeAll(async () => {
    t = await createTestApp();
    // Raw requests need a port.
    await t.app.listen(0, '127.0.0.1');
    categoryId = (
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Safety dogs' }).expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const postJson = (path: string, json: string) =>
    t.http.post(path).set(t.user).set('Content-Type', 'application/json').send(json);

  describe('U+0000 and lone surrogates', () => {
    it('should refuse U+0000 in body fields at any depth, naming each field', async () => {
      const res = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Re\u0000x', categoryId, status: 'available', tags: ['calm', 'b\u0000d'] });
      expectValidationError(res, ['name', 'tags.1']);
    });

    it('should refuse U+0000 in a login username anonymously, before any look-up', async () => {
      const res = await t.http
        .post('/v1/auth/login')
        .send({ username: 'ad\u0000min', password: 'any password' });
      expectValidationError(res, ['username']);
    });

    it('should refuse U+0000 in a query value', async () => {
      const res = await t.http.get('/v1/pets?category=Dogs%00').set(t.user);
      expectValidationError(res, ['category']);
    });

    it('should refuse U+0000 in a path id', async () => {
      expectValidationError(await t.http.get('/v1/pets/1%00').set(t.user), ['petId']);
    });

    it('should refuse U+0000 in a multipart field', async () => {
      const petId = await createPet(t);
      const res = await uploadImage(t, petId, await pngImage(8, 8), { description: 'at\u0000sea' });
      expectValidationError(res, ['description']);
      const images = await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200);
      expect(images.body.images).toEqual([]);
    });

    it('should refuse a lone UTF-16 surrogate instead of storing it as U+FFFD', async () => {
      const res = await postJson('/v1/categories', '{"name":"Cats \\ud800"}').set(t.admin);
      expectValidationError(res, ['name']);
    });

    it('should accept characters outside the BMP (surrogate pairs)', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .send({ name: 'Parrots \u{1F99C}' })
        .expect(201);
      expect(res.body.name).toBe('Parrots \u{1F99C}');
    });
  });

  describe('prototype keys', () => {
    it.each(['__proto__', 'constructor', 'prototype'])(
      'should refuse a top-level %s key as an unknown field',
      async (key) => {
        const res = await postJson('/v1/categories', `{"name":"Proto","${key}":{"a":1}}`).set(
          t.admin,
        );
        expectValidationError(res, [key]);
      },
    );

    it('should refuse __proto__ nested in a list, and never merge it', async () => {
      const res = await postJson(
        '/v1/pets',
        `{"name":"Rex","categoryId":${categoryId},"status":"available","tags":[{"__proto__":{"length":1}}]}`,
      );
      expectValidationError(res, ['tags.0.__proto__']);
    });

    it('should refuse __proto__ as a query parameter', async () => {
      expectValidationError(await t.http.get('/v1/pets?__proto__=x').set(t.user), ['__proto__']);
    });

    it('should refuse __proto__ as a multipart field', async () => {
      const petId = await createPet(t);
      const res = await uploadImage(t, petId, await pngImage(8, 8)).field('__proto__[a]', 'x');
      expectValidationError(res, ['__proto__']);
    });
  });

  describe('nesting depth', () => {
    it('should refuse a body nested deeper than 32 levels, naming where', async () => {
      const res = await postJson('/v1/pets', `{"tags":${nested(40)}}`);
      expectValidationError(res, [`tags${'.0'.repeat(31)}`]);
    });

    it('should answer 400, not fail, for nesting as deep as 100 kB allows', async () => {
      const depth = 40_000;
      const res = await postJson('/v1/pets', `{"name":${nested(depth)}}`);
      expect(res.status).toBe(400);
    });

    it('should accept 32 levels, leaving the value to its field rule', async () => {
      const res = await postJson(
        '/v1/pets',
        `{"name":"Deep","categoryId":${categoryId},"status":"available","tags":${nested(31)}}`,
      );
      // Named by the list's own rule, not at the depth where it would have been cut off.
      expectValidationError(res, ['tags']);
    });
  });

  describe('body-parser failures', () => {
    it('should answer a gzip body that does not inflate with 400 INVALID_JSON', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .send('not gzip at all');
      expectError(res, 400, 'INVALID_JSON');
    });

    it('should not fail (no error logged) on a body shorter than its Content-Length', async () => {
      const logger = t.app.get<Logger>(ROOT_LOGGER);
      const errors = jest.spyOn(logger, 'error');
      const warnings = jest.spyOn(logger, 'warn');
      try {
        await sendThenHalfClose(
          t,
          'POST /v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
            'Content-Length: 100\r\nX-Request-Id: short-body\r\n\r\n{"username":',
        );
        // The request's log line ("aborted by the client"), then a moment for the body parser's
        // failure to reach the exception filter, which logs what it answers with a 5xx.
        await waitFor(async () => Promise.resolve(warnings.mock.calls.length > 0));
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(errors).not.toHaveBeenCalled();
      } finally {
        errors.mockRestore();
        warnings.mockRestore();
      }
    });
  });
});

function nested(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

/** Writes a raw request, ends the sending side and resolves once the server closes. */
function sendThenHalfClose(t: TestApp, raw: string): Promise<string> {
  const address = t.app.getHttpServer().address() as { port: number } | null;
  return new Promise((resolve, reject) => {
    const socket = connect(address!.port, '127.0.0.1', () => socket.end(raw));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}
