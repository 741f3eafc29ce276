import { afterEach, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { generateApiKey } from '../../../src/auth/api-key-format.js';
import { apiKey, createApiKey, createUser } from '../../support/auth.js';
import { freePort } from '../../support/free-port.js';
import { expectError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

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

    it('should keep a lock however many other counters arrive after it', async () => {
      const t = await start({ ...lockout, RATE_LIMIT_MEMORY_MAX_COUNTERS: '10' });
      const victim = await createUser(t);
      const from = (address: string, username: string, password: string) =>
        t.http.post('/v1/auth/login').set('X-Forwarded-For', address).send({ username, password });
      for (let i = 0; i < 3; i++) {
        await from('198.51.100.1', victim.username, 'wrong password');
      }
      // Each attempt from a fresh address with a fresh username starts new counters.
      for (let i = 0; i < 30; i++) {
        await from(`203.0.113.${i + 1}`, `nobody${i}`, 'wrong password');
      }
      const locked = await from('198.51.100.2', victim.username, victim.password);
      expectError(locked, 401, 'INVALID_CREDENTIALS');
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

  describe('refused credentials, bounded per address before any look-up', () => {
    const refusedBudget = (perMinute: number) => ({
      RATE_LIMIT_REFUSED_CREDENTIALS_PER_MINUTE: String(perMinute),
      TRUST_PROXY: '1',
    });

    it('should serve a valid API key and bearer token from an address whose anonymous budget is spent', async () => {
      const t = await start({ ...limits('ANONYMOUS', 5), TRUST_PROXY: '1' });
      const key = apiKey((await createApiKey(t, t.user)).key);
      const office = { 'X-Forwarded-For': '198.51.100.10' };
      for (let i = 0; i < 5; i++) await t.http.get('/v1/pets').set(office);
      expectError(await t.http.get('/v1/pets').set(office), 429, 'RATE_LIMIT_EXCEEDED');
      expect((await t.http.get('/v1/pets').set({ ...office, ...key })).status).toBe(200);
      expect((await t.http.get('/v1/pets').set({ ...office, ...t.user })).status).toBe(200);
    });

    it('should answer 429 without a look-up once the address has spent its refused credentials', async () => {
      const t = await start({ ...refusedBudget(2), ...limits('ANONYMOUS', 100) });
      const key = apiKey((await createApiKey(t, t.user)).key);
      const queries = recordQueries(t);
      const attacker = { 'X-Forwarded-For': '198.51.100.20' };
      const forged = () =>
        t.http.get('/v1/pets').set({ ...attacker, ...apiKey(generateApiKey('test')) });
      expectError(await forged(), 401, 'INVALID_API_KEY');
      expectError(await forged(), 401, 'INVALID_API_KEY');
      expect(keyLookups(queries)).toBe(2);
      const refused = await forged();
      expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(refused.body.details).toMatchObject({ limit: 2, window: 'minute' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(rateLimitOf(refused)).toMatchObject({ limit: '2', remaining: '0' });
      // Every further credential from that address, a valid one too, waits for the window.
      expectError(
        await t.http.get('/v1/pets').set({ ...attacker, ...key }),
        429,
        'RATE_LIMIT_EXCEEDED',
      );
      expect(keyLookups(queries)).toBe(2);
      // Anonymous requests spend only the anonymous budget, which is not spent.
      expectError(await t.http.get('/v1/pets').set(attacker), 401, 'AUTHENTICATION_REQUIRED');
      // Another address's credentials are looked up as usual.
      const other = { 'X-Forwarded-For': '198.51.100.21' };
      expect((await t.http.get('/v1/pets').set({ ...other, ...key })).status).toBe(200);
    });

    it('should count a forged API key on GET /v1/rate-limit, which is itself not counted', async () => {
      const t = await start({ ...refusedBudget(2), ...limits('ANONYMOUS', 100) }, false);
      const forged = () => t.http.get('/v1/rate-limit').set(apiKey(generateApiKey('test')));
      expectError(await forged(), 401, 'INVALID_API_KEY');
      expectError(await forged(), 401, 'INVALID_API_KEY');
      expectError(await forged(), 429, 'RATE_LIMIT_EXCEEDED');
    });

    it('should bound the key look-ups of GET /v1/rate-limit per address', async () => {
      const t = await start({ RATE_LIMIT_BUDGET_READS_PER_MINUTE: '3', TRUST_PROXY: '1' });
      const key = apiKey((await createApiKey(t, t.user)).key);
      const queries = recordQueries(t);
      const from = { 'X-Forwarded-For': '198.51.100.30' };
      for (let i = 0; i < 3; i++) {
        const res = await t.http.get('/v1/rate-limit').set({ ...from, ...key });
        expect(res.status).toBe(200);
        // Not counted: the key's own budget is untouched.
        expect(res.body.windows[1]).toMatchObject({ window: 'minute', remaining: 1_000_000 });
      }
      expect(keyLookups(queries)).toBe(3);
      const refused = await t.http.get('/v1/rate-limit').set({ ...from, ...key });
      expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(refused.body.details).toMatchObject({ limit: 3, window: 'minute' });
      expect(keyLookups(queries)).toBe(3);
      // The reads' bound is theirs alone: the key still works everywhere else.
      expect((await t.http.get('/v1/pets').set({ ...from, ...key })).status).toBe(200);
    });
  });

  describe('Redis unreachable', () => {
    it("should fall back to the instance's memory counters, for limits and the lock-out, and count it", async () => {
      const t = await start(
        {
          ...limits('ANONYMOUS', 3),
          REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
          LOGIN_LOCKOUT_FAILURES: '2',
          METRICS_ENABLED: 'true',
          TRUST_PROXY: '1',
        },
        false,
      );
      const login = (address: string, password: string) =>
        t.http
          .post('/v1/auth/login')
          .set('X-Forwarded-For', address)
          .send({ username: t.adminUser.username, password });
      await login('198.51.100.1', 'wrong password');
      await login('198.51.100.2', 'wrong password');
      expectError(await login('198.51.100.3', t.adminUser.password), 401, 'INVALID_CREDENTIALS');

      const from = { 'X-Forwarded-For': '198.51.100.9' };
      for (let i = 0; i < 3; i++) {
        expectError(await t.http.get('/v1/pets').set(from), 401, 'AUTHENTICATION_REQUIRED');
      }
      expectError(await t.http.get('/v1/pets').set(from), 429, 'RATE_LIMIT_EXCEEDED');

      const metrics = await t.http.get('/metrics').expect(200);
      const fallbacks = /^petstore_rate_limit_fallbacks_total (\d+)$/m.exec(metrics.text);
      expect(Number(fallbacks?.[1])).toBeGreaterThan(0);
    });
  });

  describe('empty credential headers', () => {
    it('should refuse an empty X-API-Key as INVALID_API_KEY, also beside a valid bearer token', async () => {
      const t = await start({});
      expectError(await t.http.get('/v1/pets').set('X-API-Key', ''), 401, 'INVALID_API_KEY');
      expectError(
        await t.http.get('/v1/pets').set(t.user).set('X-API-Key', ''),
        401,
        'INVALID_API_KEY',
      );
    });

    it('should refuse an empty Authorization as INVALID_TOKEN, also beside a valid API key', async () => {
      const t = await start({});
      const key = apiKey((await createApiKey(t, t.user)).key);
      expectError(await t.http.get('/v1/pets').set('Authorization', ''), 401, 'INVALID_TOKEN');
      expectError(
        await t.http.get('/v1/pets').set(key).set('Authorization', ''),
        401,
        'INVALID_TOKEN',
      );
    });
  });

  describe('request bodies refused before the handler', () => {
    const post = (t: TestApp, path: string, body: string, headers: Record<string, string> = {}) =>
      t.http.post(path).set(headers).set('Content-Type', 'application/json').send(body);

    it('should count malformed and oversized JSON and answer them with the rate-limit headers', async () => {
      // Signing in spent one of the admin's requests (it creates the plain user).
      const t = await start(limits('USER', 4));
      const malformed = await post(t, '/v1/categories', '{"name":', t.admin);
      expectError(malformed, 400, 'INVALID_JSON');
      expect(rateLimitOf(malformed)).toMatchObject({ limit: '4', remaining: '2' });
      const huge = await post(
        t,
        '/v1/categories',
        JSON.stringify({ name: 'x'.repeat(200_000) }),
        t.admin,
      );
      expectError(huge, 413, 'PAYLOAD_TOO_LARGE');
      expect(rateLimitOf(huge)).toMatchObject({ limit: '4', remaining: '1' });
      const wrongType = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .set('Content-Type', 'text/plain')
        .send('x');
      expectError(wrongType, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(rateLimitOf(wrongType)).toMatchObject({ limit: '4', remaining: '0' });
      expectError(await post(t, '/v1/categories', '{', t.admin), 429, 'RATE_LIMIT_EXCEEDED');
    });

    it('should count malformed JSON sent to login by client address', async () => {
      const t = await start(limits('ANONYMOUS', 2), false);
      const first = await post(t, '/v1/auth/login', '{"username":');
      expectError(first, 400, 'INVALID_JSON');
      expect(rateLimitOf(first)).toMatchObject({ limit: '2', remaining: '1' });
      expectError(await post(t, '/v1/auth/login', '{'), 400, 'INVALID_JSON');
      expectError(await post(t, '/v1/auth/login', '{'), 429, 'RATE_LIMIT_EXCEEDED');
    });
  });
});
