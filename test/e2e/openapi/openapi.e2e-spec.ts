import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { load } from 'js-yaml';
import { readFile } from 'node:fs/promises';
import request from 'supertest';
import { PublishedOpenApi } from '../../../src/openapi/published-openapi.js';
import { conformanceOf, conformingAgent } from '../../support/conforming-agent.js';
import { expectError } from '../../support/errors.js';
import { OpenApiConformance, type ObservedResponse } from '../../support/openapi-conformance.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
}

describe('OpenAPI description (e2e)', () => {
  let t: TestApp;
  let document: { openapi: string; paths: Record<string, Record<string, Operation>> };
  let conformance: OpenApiConformance;

  beforeAll(async () => {
    t = await createTestApp();
    document = (await t.http.get('/v1/openapi.json').expect(200)).body;
    conformance = conformanceOf(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  describe('documents', () => {
    it('should serve OpenAPI 3.1 JSON without a credential, rate limited like /v1', async () => {
      const res = await t.http.get('/v1/openapi.json').expect(200);
      expect(res.body.openapi).toBe('3.1.0');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    });

    it('should serve the same document as YAML', async () => {
      const res = await t.http.get('/v1/openapi.yaml').buffer(true).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/yaml/);
      expect(load(res.text)).toEqual(document);
    });

    it('should be the document committed in openapi/ (run npm run openapi:generate)', async () => {
      const committed: unknown = JSON.parse(await readFile('openapi/openapi.json', 'utf8'));
      expect(committed).toEqual(document);
    });

    it('should require a credential on every /v1 operation but login, refresh, logout, the account routes, single sign-on and passkey sign-in', () => {
      const open = operations()
        .filter(({ path, operation }) => path.startsWith('/v1/') && !operation.security?.length)
        .map(({ path, method }) => `${method} ${path}`);
      expect(open.sort()).toEqual(
        [
          'post /v1/auth/forgot-password',
          'post /v1/auth/login',
          'post /v1/auth/logout',
          'post /v1/auth/mfa/verify',
          'post /v1/auth/mfa/passkey-options',
          'post /v1/auth/passkeys/login-options',
          'post /v1/auth/passkeys/login',
          'post /v1/auth/refresh',
          'post /v1/auth/register',
          'post /v1/auth/resend-verification',
          'post /v1/auth/reset-password',
          'post /v1/auth/verify-email',
          'get /v1/auth/sso',
          'get /v1/auth/sso/callback',
          'get /v1/auth/sso/config',
        ].sort(),
      );
    });

    it('should take a bearer token only on /api-keys, /auth/sessions, /auth/mfa, /auth/passkeys, a user’s mfa and /webhooks, either credential elsewhere', () => {
      for (const { path, operation } of operations()) {
        if (!operation.security?.length) continue;
        const schemes = operation.security.flatMap((requirement) => Object.keys(requirement));
        expect({ path, schemes }).toEqual({
          path,
          schemes:
            /^\/v1\/((api-keys|auth\/sessions|auth\/mfa|auth\/passkeys|webhooks)(\/|$)|users\/\{id\}\/mfa$)/.test(
              path,
            )
              ? ['bearer']
              : ['bearer', 'apiKey'],
        });
      }
    });

    it('should document 401 and 500 with the error schema on every authenticated operation', () => {
      for (const { operation } of operations()) {
        expect(operation.responses['500']).toBeDefined();
        if (operation.security?.length) expect(operation.responses['401']).toBeDefined();
      }
    });
  });

  describe('interactive docs', () => {
    it('should serve Swagger UI at /docs from the app itself', async () => {
      const page = await t.http.get('/docs').expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(sources.every((src) => src.startsWith('/docs/'))).toBe(true);
      for (const src of sources) await t.http.get(src).expect(200);
      const init = await t.http.get('/docs/swagger-initializer.js').expect(200);
      expect(init.text).toContain("url: '/v1/openapi.json'");
      expect(init.text).toContain('validatorUrl: null');
    });

    it('should answer 404 in the error body for any other file under /docs', async () => {
      expectError(await t.http.get('/docs/package.json'), 404, 'NOT_FOUND');
      expectError(await t.http.get('/docs/..%2Fpackage.json'), 404, 'NOT_FOUND');
    });

    it('should answer 405 naming only GET and HEAD to other methods', async () => {
      const res = await t.http.delete('/docs/swagger-ui.css');
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.allow).toBe('GET, HEAD');
    });
  });

  describe('conformance check', () => {
    const pet = {
      id: 1,
      name: 'Rex',
      category: { id: 1, name: 'Dogs' },
      photoUrls: [],
      tags: [],
      status: 'available',
      createdAt: '2026-11-21T22:27:03.123Z',
      updatedAt: '2026-11-21T22:27:03.123Z',
    };
    const headers = {
      'x-request-id': 'abc',
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '9',
      'x-ratelimit-reset': '1795307210',
      etag: '"1.1"',
    };
    const response = (overrides: Partial<ObservedResponse>): ObservedResponse => ({
      method: 'GET',
      path: '/v1/pets/1',
      status: 200,
      headers,
      contentType: 'application/json; charset=utf-8',
      body: pet,
      hasBody: true,
      ...overrides,
    });

    it('should accept a response as documented', () => {
      expect(conformance.check(response({}))).toEqual([]);
    });

    it('should catch a leaked field, a wrong type and a missing field', () => {
      expect(conformance.check(response({ body: { ...pet, passwordHash: 'x' } }))).toHaveLength(1);
      expect(conformance.check(response({ body: { ...pet, id: '1' } }))).toHaveLength(1);
      const withoutStatus: Record<string, unknown> = { ...pet };
      delete withoutStatus.status;
      expect(conformance.check(response({ body: withoutStatus }))).toHaveLength(1);
    });

    it('should catch null sent for an optional field that has no value', () => {
      expect(conformance.check(response({ body: { ...pet, age: 3, breed: 'Pug' } }))).toEqual([]);
      for (const field of ['age', 'breed', 'description']) {
        expect(conformance.check(response({ body: { ...pet, [field]: null } }))).toHaveLength(1);
      }
      const category = { id: 1, name: 'Dogs', description: null };
      expect(conformance.check(response({ body: { ...pet, category } }))).toHaveLength(1);
    });

    it('should catch an undocumented status, a missing header and an undocumented code', () => {
      expect(conformance.check(response({ status: 418 }))).toHaveLength(1);
      expect(conformance.check(response({ headers: { 'x-request-id': 'abc' } }))).toHaveLength(4);
      const wrongCode = { code: 'CONFLICT', message: 'x', requestId: 'abc' };
      expect(conformance.check(response({ status: 404, body: wrongCode }))).toHaveLength(1);
    });

    it('should fail the request whose response departs from the document', async () => {
      const doctored = structuredClone(t.app.get(PublishedOpenApi).json) as unknown as {
        components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      };
      delete doctored.components.schemas.CategoryResponse.properties.description;
      const agent = conformingAgent(
        request(t.app.getHttpServer()),
        new OpenApiConformance(doctored),
      );
      await t.http
        .post('/v1/categories')
        .set(t.admin)
        .send({ name: 'Doctored', description: 'Not in the doctored document' })
        .expect(201);
      await expect(agent.get('/v1/categories').set(t.user)).rejects.toThrow(
        /departs from the OpenAPI document[\s\S]*additionalProperty/,
      );
    });

    it('should hold undocumented routes to the error body', () => {
      const error = { code: 'NOT_FOUND', message: 'No route', requestId: 'abc' };
      expect(
        conformance.check(response({ path: '/v1/nowhere', status: 404, body: error })),
      ).toEqual([]);
      expect(
        conformance.check(response({ path: '/v1/nowhere', status: 404, body: { error: 1 } })),
      ).not.toEqual([]);
      expect(conformance.check(response({ path: '/v1/nowhere', status: 200 }))).not.toEqual([]);
    });
  });
});
