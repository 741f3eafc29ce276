import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { apiKey, bearer, createApiKey, createUser, loginAs } from '../../support/auth.js';
import { expectError } from '../../support/errors.js';
import { TestRedisServer } from '../../support/redis-server.js';
import { waitFor } from '../../support/wait.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const limits = (tier: 'ANONYMOUS' | 'USER' | 'API_KEY', perMinute: number, perHour: number) => ({
  [`RATE_LIMIT_${tier}_PER_MINUTE`]: String(perMinute),
  [`RATE_LIMIT_${tier}_PER_HOUR`]: String(perHour),
});

function rateHeaders(res: Response) {
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('Rate limits (e2e)', () => {
  const apps: TestApp[] = [];
  // Anonymous budgets are counted from the first request, so those apps sign nobody in.
  const start = async (env: Record<string, string>, shared?: TestApp, signIn = false) => {
    const t = await createTestApp(env, { database: shared?.database, signIn });
    apps.push(t);
    return t;
  };
  afterEach(async () => {
    // Shared-database apps first: the owner's close() drops the database.
    for (const t of apps.splice(0).reverse()) await t.close();
  });

  describe('anonymous callers, by client address', () => {
    it('should count down the tightest window in the headers of every response', async () => {
      const t = await start(limits('ANONYMOUS', 3, 100));
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push(rateHeaders(await t.http.get('/v1/categories')));
      expect(seen.map((h) => [h.limit, h.remaining])).toEqual([
        [3, 2],
        [3, 1],
        [3, 0],
      ]);
      expect(seen[0].reset).toBeGreaterThanOrEqual(nowSeconds() + 55);
      expect(seen[0].reset).toBeLessThanOrEqual(nowSeconds() + 61);
    });

    it('should refuse the request past the minute limit with 429, Retry-After and details', async () => {
      const t = await start(limits('ANONYMOUS', 3, 100));
      for (let i = 0; i < 3; i++) {
        expectError(await t.http.get('/v1/categories'), 401, 'AUTHENTICATION_REQUIRED');
      }
      const res = await t.http.get('/v1/categories');
      expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.body.details).toEqual({ limit: 3, window: 'minute', retryAfter });
      expect(rateHeaders(res)).toMatchObject({ limit: 3, remaining: 0 });
    });

    it('should name, outside production, the variable that raises the limit it met', async () => {
      const t = await start(limits('ANONYMOUS', 3, 100));
      for (let i = 0; i < 3; i++) await t.http.get('/v1/categories');
      const res = await t.http.get('/v1/categories');
      expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
      expect(res.body.message).toBe(
        `Rate limit of 3 requests per minute exceeded; retry in ${res.headers['retry-after']} s; ` +
          'in development, set RATE_LIMIT_ANONYMOUS_PER_MINUTE to raise it',
      );
    });

    it('should not name the variable in production', async () => {
      const t = await start({
        ...limits('ANONYMOUS', 100, 3),
        NODE_ENV: 'production',
        ALLOW_EMBEDDED_DATABASE: 'true',
        // Production refuses to start without the key TOTP secrets are sealed with.
        MFA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      });
      for (let i = 0; i < 3; i++) await t.http.get('/v1/categories');
      const res = await t.http.get('/v1/categories');
      expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
      expect(res.body.message).toBe(
        `Rate limit of 3 requests per hour exceeded; retry in ${res.headers['retry-after']} s`,
      );
    });

    it('should enforce the hourly window on its own', async () => {
      const t = await start(limits('ANONYMOUS', 10, 3));
      for (let i = 0; i < 3; i++) {
        expect(rateHeaders(await t.http.get('/v1/categories')).limit).toBe(3);
      }
      const res = await t.http.get('/v1/categories');
      expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
      expect(res.body.details).toMatchObject({ limit: 3, window: 'hour' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(60);
    });

    it('should count every route against one budget', async () => {
      const t = await start(limits('ANONYMOUS', 2, 100));
      await t.http.get('/v1/categories');
      await t.http.get('/v1/pets');
      expectError(await t.http.get('/v1/pets/1'), 429, 'RATE_LIMIT_EXCEEDED');
    });

    it('should not give a fresh budget for a spoofed X-Forwarded-For', async () => {
      const t = await start(limits('ANONYMOUS', 2, 100));
      await t.http.get('/v1/categories');
      await t.http.get('/v1/categories');
      const res = await t.http.get('/v1/categories').set('X-Forwarded-For', '203.0.113.9');
      expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
    });

    it('should give each forwarded client its own budget behind a trusted proxy', async () => {
      const t = await start({ ...limits('ANONYMOUS', 2, 100), TRUST_PROXY: '1' });
      const as = (xff: string) => t.http.get('/v1/categories').set('X-Forwarded-For', xff);
      await as('198.51.100.1');
      await as('198.51.100.1');
      expectError(await as('198.51.100.1'), 429, 'RATE_LIMIT_EXCEEDED');
      // Prepending an address does not help: the trusted proxy's own entry counts.
      expectError(await as('203.0.113.50, 198.51.100.1'), 429, 'RATE_LIMIT_EXCEEDED');
      expect((await as('198.51.100.2')).status).toBe(401);
    });

    it('should not limit or label paths outside /v1', async () => {
      const t = await start(limits('ANONYMOUS', 1, 100));
      for (let i = 0; i < 3; i++) {
        const res = await t.http.get('/nothing-here');
        expect(res.status).toBe(404);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    });
  });

  describe('credential tiers', () => {
    it('should count a bearer token by its user, one budget per user', async () => {
      const t = await start({ ...limits('USER', 2, 100) }, undefined, true);
      const other = await createUser(t);
      await t.http.get('/v1/pets').set(t.user).expect(200);
      const res = await t.http.get('/v1/pets').set(t.user).expect(200);
      expect(rateHeaders(res)).toMatchObject({ limit: 2, remaining: 0 });
      expectError(await t.http.get('/v1/pets').set(t.user), 429, 'RATE_LIMIT_EXCEEDED');
      // A fresh token of the same user shares the budget; another user has its own.
      const again = await loginAs(t, t.plainUser.username, t.plainUser.password);
      expectError(await t.http.get('/v1/pets').set(bearer(again)), 429, 'RATE_LIMIT_EXCEEDED');
      expect((await t.http.get('/v1/pets').set(other.headers)).status).toBe(200);
    });

    it('should count an API key by the key, one budget per key', async () => {
      const t = await start({ ...limits('API_KEY', 2, 100) }, undefined, true);
      const first = apiKey((await createApiKey(t, t.user)).key);
      const second = apiKey((await createApiKey(t, t.user)).key);
      await t.http.get('/v1/pets').set(first).expect(200);
      const res = await t.http.get('/v1/pets').set(first).expect(200);
      expect(rateHeaders(res)).toMatchObject({ limit: 2, remaining: 0 });
      const refused = await t.http.get('/v1/pets').set(first);
      expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(refused.body.details).toMatchObject({ limit: 2, window: 'minute' });
      expect((await t.http.get('/v1/pets').set(second)).status).toBe(200);
      // The owner's bearer token has a budget of its own, in the user tier.
      expect((await t.http.get('/v1/pets').set(t.user)).status).toBe(200);
    });

    it("should count an API key's requests on the key's budget alone, never its owner's", async () => {
      const t = await start(
        { ...limits('API_KEY', 100, 1000), ...limits('USER', 4, 1000) },
        undefined,
        true,
      );
      // Two requests of the owner's budget go on creating two keys.
      const first = apiKey((await createApiKey(t, t.user)).key);
      const second = apiKey((await createApiKey(t, t.user)).key);
      for (let i = 0; i < 6; i++) {
        const res = await t.http.get('/v1/pets').set(i % 2 === 0 ? first : second);
        expect(res.status).toBe(200);
        expect(rateHeaders(res)).toMatchObject({ limit: 100, remaining: 99 - Math.floor(i / 2) });
      }
      // The owner's token has the two requests it spent itself left to spend.
      const own = await t.http.get('/v1/pets').set(t.user).expect(200);
      expect(rateHeaders(own)).toMatchObject({ limit: 4, remaining: 1 });
    });

    it("should serve an API key whose owner's token budget is spent", async () => {
      const t = await start(
        { ...limits('API_KEY', 100, 1000), ...limits('USER', 2, 1000) },
        undefined,
        true,
      );
      const key = apiKey((await createApiKey(t, t.user)).key);
      await t.http.get('/v1/pets').set(t.user).expect(200);
      expectError(await t.http.get('/v1/pets').set(t.user), 429, 'RATE_LIMIT_EXCEEDED');
      const res = await t.http.get('/v1/pets').set(key).expect(200);
      expect(rateHeaders(res)).toMatchObject({ limit: 100, remaining: 99 });
    });

    it('should let the bearer token decide the tier when both credentials are sent', async () => {
      const t = await start({ ...limits('API_KEY', 1, 100) }, undefined, true);
      const key = apiKey((await createApiKey(t, t.user)).key);
      for (let i = 0; i < 3; i++) {
        const res = await t.http.get('/v1/pets').set({ ...key, ...t.user });
        expect(res.status).toBe(200);
        expect(rateHeaders(res).limit).toBe(1_000_000);
      }
    });

    it('should count an invalid credential by client address', async () => {
      const t = await start({ ...limits('ANONYMOUS', 2, 100) });
      const bad = bearer('not.a.token');
      expectError(await t.http.get('/v1/pets').set(bad), 401, 'INVALID_TOKEN');
      expectError(await t.http.get('/v1/pets').set(apiKey('pk_test_nope')), 401, 'INVALID_API_KEY');
      expectError(await t.http.get('/v1/pets').set(bad), 429, 'RATE_LIMIT_EXCEEDED');
    });

    it('should count login attempts by client address', async () => {
      const t = await start({ ...limits('ANONYMOUS', 2, 100) });
      const attempt = () =>
        t.http.post('/v1/auth/login').send({ username: 'admin', password: 'wrong password' });
      expectError(await attempt(), 401, 'INVALID_CREDENTIALS');
      expectError(await attempt(), 401, 'INVALID_CREDENTIALS');
      expectError(await attempt(), 429, 'RATE_LIMIT_EXCEEDED');
    });

    it('should report the budget at GET /v1/rate-limit without spending it', async () => {
      const t = await start({ ...limits('USER', 5, 100) }, undefined, true);
      await t.http.get('/v1/pets').set(t.user);
      for (let i = 0; i < 3; i++) {
        const res = await t.http.get('/v1/rate-limit').set(t.user);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          tier: 'user',
          windows: [
            { window: 'hour', limit: 100, remaining: 99, reset: expect.any(Number) },
            { window: 'minute', limit: 5, remaining: 4, reset: expect.any(Number) },
          ],
        });
        expect(rateHeaders(res)).toMatchObject({ limit: 5, remaining: 4 });
      }
    });
  });

  const withRedis = process.env.REDIS_URL ? describe : describe.skip;
  withRedis('shared counters in Redis', () => {
    const redisEnv = () => ({
      REDIS_URL: process.env.REDIS_URL!,
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
    });

    it('should let two instances share one budget', async () => {
      const env = { ...limits('ANONYMOUS', 3, 100), ...redisEnv() };
      const first = await start(env);
      const second = await start(env, first);
      // Both instances count the same client address in the same Redis keys.
      await first.http.get('/v1/categories');
      await second.http.get('/v1/categories');
      await first.http.get('/v1/categories');
      const res = await second.http.get('/v1/categories');
      expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
    });
  });

  const withRedisServer =
    process.env.REDIS_URL && TestRedisServer.available() ? describe : describe.skip;
  withRedisServer('Redis outages', () => {
    let redis: TestRedisServer;
    beforeAll(async () => {
      redis = await TestRedisServer.start();
    });
    afterAll(async () => {
      await redis.stop();
    });

    it('should limit from memory while Redis is down and share counters again once it is back', async () => {
      const env = {
        ...limits('ANONYMOUS', 3, 100),
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
      };
      const first = await start(env);
      const second = await start(env, first);
      expect((await first.http.get('/v1/categories')).status).toBe(401);

      await redis.stop();
      // Each instance counts on its own while Redis is away, and still refuses past the limit.
      for (let i = 0; i < 3; i++) {
        expectError(await first.http.get('/v1/categories'), 401, 'AUTHENTICATION_REQUIRED');
      }
      expectError(await first.http.get('/v1/categories'), 429, 'RATE_LIMIT_EXCEEDED');
      expectError(await second.http.get('/v1/categories'), 401, 'AUTHENTICATION_REQUIRED');

      await redis.restart();
      // Back on Redis (empty after its restart), both instances count on one budget again.
      // Each instance reconnects on its own: ready again means its client reaches Redis.
      const ready = async (t: TestApp) => (await t.http.get('/health/ready')).status === 200;
      await waitFor(async () => (await ready(first)) && (await ready(second)), 10_000);
      expectError(await first.http.get('/v1/categories'), 401, 'AUTHENTICATION_REQUIRED');
      expectError(await second.http.get('/v1/categories'), 401, 'AUTHENTICATION_REQUIRED');
      const last = await first.http.get('/v1/categories');
      expectError(last, 401, 'AUTHENTICATION_REQUIRED');
      expect(rateHeaders(last).remaining).toBe(0);
      expectError(await second.http.get('/v1/categories'), 429, 'RATE_LIMIT_EXCEEDED');
    });
  });
});
