import { afterEach, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { generateApiKey } from '../../src/auth/api-key-format.js';
import { apiKey, createApiKey, createUser } from '../support/auth.js';
import { expectError } from '../support/errors.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const limits = (tier: 'ANONYMOUS' | 'USER' | 'API_KEY', perMinute: number, perHour = 100) => ({
  [`RATE_LIMIT_${tier}_PER_MINUTE`]: String(perMinute),
  [`RATE_LIMIT_${tier}_PER_HOUR`]: String(perHour),
});

const rateLimitOf = (res: Response) => ({
  limit: res.headers['x-ratelimit-limit'],
  remaining: res.headers['x-ratelimit-remaining'],
  reset: res.headers['x-ratelimit-reset'],
});

/** Every SQL statement the app sends from now on (TypeORM reports each to its logger). */
function recordQueries(t: TestApp): string[] {
  const seen: string[] = [];
  const logger = t.dataSource.logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, queryRunner) => {
    seen.push(query);
    logQuery(query, parameters, queryRunner);
  };
  return seen;
}

const keyLookups = (queries: string[]) => queries.filter((q) => q.includes('key_hash')).length;

describe('Rate limits that cannot be evaded (e2e)', () => {
  const apps: TestApp[] = [];
  const start = async (env: Record<string, string>, signIn = true) => {
    const t = await createTestApp(env, { signIn });
    apps.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
  });

  describe('case variants of the path', () => {
    it('should answer 404 to a case variant of /v1 for every credential tier, serving nothing', async () => {
      const t = await start({});
      const key = apiKey((await createApiKey(t, t.user)).key);
      const login = await t.http
        .post('/V1/auth/login')
        .send({ username: t.plainUser.username, password: t.plainUser.password });
      expectError(login, 404, 'NOT_FOUND');
      for (const headers of [{}, t.user, t.admin, key]) {
        for (const path of ['/V1/pets', '/v1/PETS', '/V1/Categories']) {
          const res = await t.http.get(path).set(headers);
          expectError(res, 404, 'NOT_FOUND');
        }
      }
    });

    it('should spend the budget of the anonymous tier on a case-variant login path', async () => {
      const t = await start(limits('ANONYMOUS', 2), false);
      const attempt = (path: string) =>
        t.http.post(path).send({ username: 'admin', password: 'wrong password' });
      expectError(await attempt('/v1/auth/login'), 401, 'INVALID_CREDENTIALS');
      expectError(await attempt('/v1/auth/login'), 401, 'INVALID_CREDENTIALS');
      // Neither a variant of the prefix nor of the route reaches the handler.
      expectError(await attempt('/V1/auth/login'), 404, 'NOT_FOUND');
      expectError(await attempt('/v1/AUTH/LOGIN'), 429, 'RATE_LIMIT_EXCEEDED');
    });
  });

  describe('unknown routes under /v1', () => {
    it('should carry the rate-limit headers on a 404 and a 405, and count them', async () => {
      const t = await start(limits('ANONYMOUS', 3), false);
      const notFound = await t.http.get('/v1/no-such-route');
      expectError(notFound, 404, 'NOT_FOUND');
      expect(rateLimitOf(notFound)).toEqual({
        limit: '3',
        remaining: '2',
        reset: expect.any(String),
      });
      const notAllowed = await t.http.delete('/v1/categories');
      expectError(notAllowed, 405, 'METHOD_NOT_ALLOWED');
      expect(notAllowed.headers.allow).toBe('GET, HEAD, POST');
      expect(rateLimitOf(notAllowed)).toMatchObject({ limit: '3', remaining: '1' });
      await t.http.get('/v1/no-such-route');
      expectError(await t.http.get('/v1/no-such-route'), 429, 'RATE_LIMIT_EXCEEDED');
    });
  });

  describe('public routes, by client address only', () => {
    it('should count login by address even with a valid bearer token or API key sent along', async () => {
      const t = await start({
        ...limits('ANONYMOUS', 6),
        ...limits('USER', 1000),
        ...limits('API_KEY', 1000),
      });
      const key = apiKey((await createApiKey(t, t.user)).key);
      const attempt = (headers: Record<string, string>) =>
        t.http
          .post('/v1/auth/login')
          .set(headers)
          .send({ username: 'admin', password: 'wrong password' });
      // Signing the admin and the user in has spent some of the address's budget already.
      const first = await attempt(t.user);
      expectError(first, 401, 'INVALID_CREDENTIALS');
      expect(rateLimitOf(first).limit).toBe('6');
      const left = Number(rateLimitOf(first).remaining);
      expect(left).toBeGreaterThan(0);
      for (let i = 0; i < left; i++) {
        expectError(await attempt(i % 2 === 0 ? key : t.user), 401, 'INVALID_CREDENTIALS');
      }
      expectError(await attempt(t.user), 429, 'RATE_LIMIT_EXCEEDED');
      expectError(await attempt(key), 429, 'RATE_LIMIT_EXCEEDED');
      // The credentials' own budgets were not spent.
      expect((await t.http.get('/v1/pets').set(t.user)).status).toBe(200);
    });

    it('should not look up a credential sent to a public route', async () => {
      const t = await start({});
      const queries = recordQueries(t);
      const forged = apiKey(generateApiKey('test'));
      expect((await t.http.get('/health/live').set(forged)).status).toBe(200);
      expect((await t.http.get('/v1/openapi.json').set(forged)).status).toBe(200);
      expect(
        (await t.http.get('/media/0123456789abcdef0123456789abcdef.jpg').set(forged)).status,
      ).toBe(404);
      expect(keyLookups(queries)).toBe(0);
    });
  });

  describe('login lock-out per username', () => {
    const lockout = { LOGIN_LOCKOUT_FAILURES: '3', LOGIN_LOCKOUT_SECONDS: '60', TRUST_PROXY: '1' };

    it('should lock a username after repeated failures from many addresses, answering like a wrong password', async () => {
      const t = await start(lockout);
      const victim = await createUser(t);
      const from = (address: string, password: string, username = victim.username) =>
        t.http.post('/v1/auth/login').set('X-Forwarded-For', address).send({ username, password });
      for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
        expectError(await from(address, 'wrong password'), 401, 'INVALID_CREDENTIALS');
      }
      const locked = await from('198.51.100.4', victim.password);
      expectError(locked, 401, 'INVALID_CREDENTIALS');
      const wrong = await from('198.51.100.5', 'wrong password');
      expect(locked.body.message).toBe(wrong.body.message);
      expect(locked.headers['www-authenticate']).toBe(wrong.headers['www-authenticate']);
      // The name's case is no way around the lock; another username is not affected.
      const upper = victim.username.toUpperCase();
      expectError(await from('198.51.100.6', victim.password, upper), 401, 'INVALID_CREDENTIALS');
      const other = await from('198.51.100.7', t.adminUser.password, t.adminUser.username);
      expect(other.status).toBe(200);
    });

    it('should let the right password in below the threshold', async () => {
      const t = await start(lockout);
      const victim = await createUser(t);
      const login = (password: string) =>
        t.http.post('/v1/auth/login').send({ username: victim.username, password });
      expectError(await login('wrong password'), 401, 'INVALID_CREDENTIALS');
      expectError(await login('wrong password'), 401, 'INVALID_CREDENTIALS');
      expect((await login(victim.password)).status).toBe(200);
    });
  });

  describe('failed credentials, counted before any look-up', () => {
    it('should count a forged API key on GET /v1/rate-limit, which is itself not counted', async () => {
      const t = await start(limits('ANONYMOUS', 2), false);
      const forged = () => t.http.get('/v1/rate-limit').set(apiKey(generateApiKey('test')));
      expectError(await forged(), 401, 'INVALID_API_KEY');
      expectError(await forged(), 401, 'INVALID_API_KEY');
      expectError(await forged(), 429, 'RATE_LIMIT_EXCEEDED');
    });

    it('should refuse a forged API key without a database look-up once the address is over budget', async () => {
      const t = await start(limits('ANONYMOUS', 2), false);
      const queries = recordQueries(t);
      const forged = () => t.http.get('/v1/pets').set(apiKey(generateApiKey('test')));
      expectError(await forged(), 401, 'INVALID_API_KEY');
      expectError(await forged(), 401, 'INVALID_API_KEY');
      expect(keyLookups(queries)).toBe(2);
      for (let i = 0; i < 3; i++) expectError(await forged(), 429, 'RATE_LIMIT_EXCEEDED');
      expect(keyLookups(queries)).toBe(2);
    });
  });
});
