import { createConnection, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { expectError } from '../../support/errors.js';
import { jpegImage } from '../../support/images.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { uploadImage } from '../../support/uploads.js';
import { ShutdownService } from '../../../src/shutdown/shutdown.service.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** Makes the app listen on a free loopback port and returns its base URL. */
async function listening(t: TestApp): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  return (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
}

function connect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The first data a socket receives, or its closing without any. */
function firstOf(socket: Socket): Promise<{ closed: boolean; data: string }> {
  return new Promise((resolve) => {
    socket.once('data', (chunk) => resolve({ closed: false, data: chunk.toString('utf8') }));
    socket.once('close', () => resolve({ closed: true, data: '' }));
  });
}

describe('Operations endpoints and headers (e2e)', () => {
  const apps: TestApp[] = [];
  const start = async (env: Record<string, string> = {}, signIn = true) => {
    const t = await createTestApp(env, { signIn });
    apps.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
  });

  describe('health', () => {
    it('should report live and ready outside /v1 without credentials', async () => {
      const t = await start();
      const live = await t.http.get('/health/live');
      expect({ status: live.status, body: live.body }).toEqual({
        status: 200,
        body: { status: 'ok' },
      });
      const ready = await t.http.get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'ok',
        checks: {
          server: 'up',
          database: 'up',
          ...(process.env.REDIS_URL ? { redis: 'up' } : {}),
          storage: 'up',
        },
      });
      expectError(await t.http.get('/v1/health/live').set(t.admin), 404, 'NOT_FOUND');
    });

    it('should not rate limit or label the probes', async () => {
      const t = await start({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' }, false);
      for (let i = 0; i < 3; i++) {
        const res = await t.http.get('/health/ready');
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    });

    it('should run the readiness checks at most about once a second, however many probes arrive', async () => {
      const t = await start({ METRICS_ENABLED: 'true' }, false);
      const url = await listening(t);
      const began = performance.now();
      const together = await Promise.all(
        Array.from({ length: 50 }, () => fetch(`${url}/health/ready`)),
      );
      const oneByOne: Response[] = [];
      for (let i = 0; i < 50; i++) oneByOne.push(await fetch(`${url}/health/ready`));
      const seconds = (performance.now() - began) / 1000;

      for (const res of [...together, ...oneByOne]) expect(res.status).toBe(200);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      const checks = Number(
        /petstore_readiness_checks_total\{outcome="ready"\} (\d+)/.exec(metrics)?.[1],
      );
      expect(checks).toBeGreaterThanOrEqual(1);
      expect(checks).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    });

    it('should answer ready with 503 and Retry-After once shutting down, while live stays 200', async () => {
      const t = await start();
      // A success just before must not be reused once shutting down.
      expect((await t.http.get('/health/ready')).status).toBe(200);
      await t.app.get(ShutdownService).beforeApplicationShutdown();
      const ready = await t.http.get('/health/ready');
      expectError(ready, 503, 'SERVICE_UNAVAILABLE');
      expect(ready.headers['retry-after']).toBe('5');
      expect(ready.body.details.checks).toMatchObject({ server: 'down', database: 'up' });
      expect((await t.http.get('/health/live')).status).toBe(200);
    });
  });

  describe('connections', () => {
    it('should close a connection beyond HTTP_MAX_CONNECTIONS at once and serve the others', async () => {
      const t = await start({ HTTP_MAX_CONNECTIONS: '2' });
      const port = Number(new URL(await listening(t)).port);
      const open = [await connect(port), await connect(port)];
      try {
        const extra = await connect(port);
        // Accepted by the kernel, then closed by the server without a byte of response.
        const outcome = await firstOf(extra);
        expect(outcome).toEqual({ closed: true, data: '' });

        open[0].write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n');
        expect((await firstOf(open[0])).data).toMatch(/^HTTP\/1\.1 200/);
      } finally {
        for (const socket of open) socket.destroy();
      }
    });
  });

  describe('metrics', () => {
    it('should not exist unless METRICS_ENABLED', async () => {
      const t = await start();
      expectError(await t.http.get('/metrics'), 404, 'NOT_FOUND');
    });

    it('should count requests by route template and status, refusals and pool use', async () => {
      // Signing in spent one of the admin's three: creating the plain user.
      const t = await start({ METRICS_ENABLED: 'true', RATE_LIMIT_USER_PER_MINUTE: '3' });
      await t.http.get('/v1/pets/1').set(t.admin);
      await t.http.get('/v1/pets/2').set(t.admin);
      expect((await t.http.get('/v1/pets/3').set(t.admin)).status).toBe(429);

      const res = await t.http.get('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.text).toContain(
        'http_requests_total{method="GET",route="/v1/pets/:petId",status="404"} 2',
      );
      expect(res.text).toContain(
        'http_requests_total{method="GET",route="/v1/pets/:petId",status="429"} 1',
      );
      expect(res.text).toMatch(
        /http_request_duration_seconds_count\{method="GET",route="\/v1\/pets\/:petId",status="404"\} 2/,
      );
      expect(res.text).toContain(
        'petstore_rate_limit_refusals_total{tier="user",window="minute"} 1',
      );
      expect(res.text).toMatch(/petstore_db_pool_connections\{state="idle"\} \d+/);
      expect(res.text).toMatch(/petstore_db_pool_waiting \d+/);
      expect(res.text).toContain('process_resident_memory_bytes');
    });

    it('should time every image the processor decodes, refused ones included', async () => {
      const t = await start({ METRICS_ENABLED: 'true' });
      const petId = await createPet(t);
      expect((await uploadImage(t, petId, await jpegImage(40, 30))).status).toBe(201);
      // Sniffed as JPEG, then refused by the decoder: processing ran, and is timed too.
      const jpeg = await jpegImage(800, 600);
      const truncated = jpeg.subarray(0, Math.floor(jpeg.length * 0.6));
      expectError(await uploadImage(t, petId, truncated), 400, 'INVALID_IMAGE');

      const res = await t.http.get('/metrics');
      expect(res.text).toContain('petstore_image_processing_seconds_count 2');
    });

    it('should require the bearer METRICS_TOKEN when one is set', async () => {
      const t = await start({ METRICS_ENABLED: 'true', METRICS_TOKEN });
      const missing = await t.http.get('/metrics');
      expectError(missing, 401, 'AUTHENTICATION_REQUIRED');
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expectError(
        await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}x`),
        401,
        'INVALID_TOKEN',
      );
      const granted = await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
      expect(granted.status).toBe(200);
    });
  });

  describe('security headers and CORS', () => {
    it('should send helmet headers with a strict CSP and no X-Powered-By', async () => {
      const t = await start();
      const res = await t.http.get('/v1/categories').set(t.admin);
      expect(res.headers).toMatchObject({
        'content-security-policy': "default-src 'none';frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'strict-transport-security': expect.stringContaining('max-age='),
        'referrer-policy': 'no-referrer',
      });
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it('should allow no cross-origin caller by default', async () => {
      const t = await start();
      const res = await t.http
        .get('/v1/categories')
        .set(t.admin)
        .set('Origin', 'https://shop.example.com');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('should allow exactly the CORS_ORIGINS, preflight included', async () => {
      const t = await start({
        CORS_ORIGINS: 'https://shop.example.com, https://admin.example.com',
      });
      const allowed = await t.http
        .get('/v1/categories')
        .set(t.admin)
        .set('Origin', 'https://admin.example.com');
      expect(allowed.headers['access-control-allow-origin']).toBe('https://admin.example.com');
      expect(allowed.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');

      const preflight = await t.http
        .options('/v1/pets')
        .set('Origin', 'https://shop.example.com')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('https://shop.example.com');
      expect(preflight.headers['access-control-allow-headers']).toContain('Authorization');

      const other = await t.http
        .get('/v1/categories')
        .set(t.admin)
        .set('Origin', 'https://evil.example.net');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
