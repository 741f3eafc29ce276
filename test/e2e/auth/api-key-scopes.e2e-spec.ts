import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryModule, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { BEARER_ONLY_KEY } from '../../../src/auth/bearer-only.decorator.js';
import { IS_PUBLIC_KEY } from '../../../src/common/decorators/public.decorator.js';
import {
  ANY_SCOPE,
  REQUIRED_SCOPE_KEY,
} from '../../../src/common/decorators/required-scope.decorator.js';
import { DEFAULT_ROLES, ROLES_KEY } from '../../../src/common/decorators/roles.decorator.js';
import {
  API_KEY_SCOPES,
  ROLE_SCOPES,
  type ApiKeyScope,
} from '../../../src/common/types/api-key-scope.js';
import type { Role } from '../../../src/common/types/principal.js';
import { apiKey, createUser, type Headers } from '../../support/auth.js';
import { errorBody, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

interface Route {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Under /v1, with every path parameter an id that names nothing. */
  url: string;
  label: string;
  bearerOnly: boolean;
  roles: readonly Role[];
  scope: ApiKeyScope | typeof ANY_SCOPE | undefined;
}

const VERBS: Partial<Record<RequestMethod, Route['method']>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
};

/** Every authenticated route Nest discovered, with what its decorators declare. */
function discoveredRoutes(t: TestApp): Route[] {
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  const routes: Route[] = [];
  for (const { metatype, instance } of t.app.get(DiscoveryService).getControllers()) {
    if (!metatype || !instance) continue;
    const prototype = Object.getPrototypeOf(instance) as Record<string, () => unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      const verb = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (verb === undefined) continue;
      const targets: (typeof handler | typeof metatype)[] = [handler, metatype];
      // Public routes (probes, media, the console, the unknown-route catch-all) take no credential.
      if (reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) continue;
      const method = VERBS[verb];
      if (!method) throw new Error(`${metatype.name}.${name}: a method this test does not send`);
      const path = [
        Reflect.getMetadata(PATH_METADATA, metatype),
        Reflect.getMetadata(PATH_METADATA, handler),
      ]
        .map(String)
        .join('/')
        .replace(/:\w+/g, '999999')
        .replace(/\/+/g, '/')
        .replace(/^\/|\/$/g, '');
      routes.push({
        method,
        url: `/v1/${path}`,
        label: `${method.toUpperCase()} /v1/${path} (${metatype.name}.${name})`,
        bearerOnly: reflector.getAllAndOverride<boolean>(BEARER_ONLY_KEY, targets) === true,
        roles:
          reflector.getAllAndOverride<readonly Role[] | undefined>(ROLES_KEY, targets) ??
          DEFAULT_ROLES,
        scope: reflector.getAllAndOverride<Route['scope']>(REQUIRED_SCOPE_KEY, targets),
      });
    }
  }
  return routes;
}

describe('API key scopes (e2e)', () => {
  let t: TestApp;
  /** The routes an API key can reach: authenticated, not bearer-only. */
  let keyRoutes: Route[];
  /** An admin key per scope, holding that scope alone. */
  const keyOf = new Map<ApiKeyScope, Headers>();

  const createKey = async (headers: Headers, body: Record<string, unknown>) => {
    const res = await t.http
      .post('/v1/api-keys')
      .set(headers)
      .send({ name: 'scoped', mode: 'test', ...body });
    return res;
  };

  beforeAll(async () => {
    t = await createTestApp({ API_KEYS_PER_USER: '30' }, { imports: [DiscoveryModule] });
    keyRoutes = discoveredRoutes(t).filter((route) => !route.bearerOnly);
    for (const scope of API_KEY_SCOPES) {
      const res = await createKey(t.admin, { scopes: [scope] });
      expect(res.status).toBe(201);
      keyOf.set(scope, apiKey(res.body.key as string));
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('should find the routes keys reach, and each declares its scope', () => {
    expect(keyRoutes.length).toBeGreaterThan(30);
    const undeclared = keyRoutes.filter((route) => route.scope === undefined).map((r) => r.label);
    expect(undeclared).toEqual([]);
  });

  it('should let every role a route admits hold that route’s scope', () => {
    const unreachable = keyRoutes.flatMap((route) =>
      route.scope === ANY_SCOPE || route.scope === undefined
        ? []
        : route.roles
            .filter((role) => !ROLE_SCOPES[role].includes(route.scope as ApiKeyScope))
            .map((role) => `${route.label}: ${role} lacks ${route.scope}`),
    );
    expect(unreachable).toEqual([]);
  });

  it('should let a key through every route with its scope alone, and refuse it everywhere else', async () => {
    const wrong: string[] = [];
    for (const route of keyRoutes) {
      for (const scope of API_KEY_SCOPES) {
        const request = t.http[route.method](route.url).set(keyOf.get(scope)!);
        const res = await (route.method === 'post' || route.method === 'put'
          ? request.send({})
          : request);
        const allowed = route.scope === ANY_SCOPE || route.scope === scope;
        // Let through, the request meets what comes after the guards: a 404 for the ids that
        // name nothing, a 400 or 415 for the empty body; never a 401 or 403.
        if (allowed ? res.status === 401 || res.status === 403 : res.status !== 403) {
          wrong.push(`${route.label} with ${scope}: ${res.status} ${res.body.code}`);
          continue;
        }
        if (allowed) continue;
        expect(res.body).toEqual(errorBody('INSUFFICIENT_SCOPE', { required: [route.scope] }));
        expect(res.headers['x-accepted-scopes']).toBe(route.scope);
      }
    }
    expect(wrong).toEqual([]);
    // About 450 requests, one after another.
  }, 300_000);

  it('should give a bearer token every scope of its role', async () => {
    await t.http.get('/v1/audit-events').set(t.admin).expect(200);
    await t.http.get('/v1/pets').set(t.user).expect(200);
  });

  it('should publish each operation’s scope in the OpenAPI document', async () => {
    const document = (await t.http.get('/v1/openapi.json').expect(200)).body as {
      paths: Record<
        string,
        Record<
          string,
          { 'x-required-scopes'?: string[]; responses: Record<string, { description: string }> }
        >
      >;
    };
    const listPets = document.paths['/v1/pets'].get;
    expect(listPets['x-required-scopes']).toEqual(['pets:read']);
    expect(listPets.responses['403'].description).toContain('INSUFFICIENT_SCOPE');
    expect(document.paths['/v1/pets/{petId}/upload-image'].post['x-required-scopes']).toEqual([
      'media:write',
    ]);
  });

  describe('creating a key with scopes', () => {
    it('should show the scopes given, once each, in the creation and in the list', async () => {
      const owner = await createUser(t);
      const res = await createKey(owner.headers, {
        scopes: ['pets:write', 'pets:read', 'pets:read'],
      });
      expect(res.status).toBe(201);
      expect(res.body.scopes).toEqual(['pets:read', 'pets:write']);
      const list = await t.http.get('/v1/api-keys').set(owner.headers).expect(200);
      expect(list.body.apiKeys[0].scopes).toEqual(['pets:read', 'pets:write']);
    });

    it('should give a key made without scopes every scope its owner’s role allows', async () => {
      const customer = await createUser(t, { role: 'customer' });
      const res = await createKey(customer.headers, {});
      expect(res.status).toBe(201);
      expect(res.body.scopes).toEqual(ROLE_SCOPES.customer);
    });

    it.each([[{ scopes: [] }], [{ scopes: 'pets:read' }], [{ scopes: ['pets:read', 'pets:fly'] }]])(
      'should refuse %j with 400 on scopes',
      async (body) => {
        expectValidationError(await createKey(t.user, body), ['scopes']);
      },
    );

    it('should refuse a scope the owner’s role does not allow with 400 on scopes', async () => {
      const customer = await createUser(t, { role: 'customer' });
      const res = await createKey(customer.headers, { scopes: ['pets:read', 'pets:write'] });
      expectValidationError(res, ['scopes']);
      expect(res.body.details.fields[0].message).toContain('pets:write');
    });
  });

  it('should cut a key’s scopes to its owner’s lowered role at the next request', async () => {
    const staff = await createUser(t, { role: 'admin' });
    const created = await createKey(staff.headers, { scopes: ['pets:read', 'audit:read'] });
    const key = apiKey(created.body.key as string);
    await t.http.get('/v1/audit-events').set(key).expect(200);

    await t.http.put(`/v1/users/${staff.id}`).set(t.admin).send({ role: 'customer' }).expect(200);

    const audit = await t.http.get('/v1/audit-events').set(key);
    expect(audit.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
    await t.http.get('/v1/pets').set(key).expect(200);
    const relogged = await t.http
      .post('/v1/auth/login')
      .send({ username: staff.username, password: staff.password })
      .expect(200);
    const list = await t.http
      .get('/v1/api-keys')
      .set({ Authorization: `Bearer ${relogged.body.token as string}` })
      .expect(200);
    expect(list.body.apiKeys[0].scopes).toEqual(['pets:read']);
  });
});
