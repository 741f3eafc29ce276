import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKey, bearer, createApiKey, createUser } from '../../support/auth.js';
import { refuseInserts } from '../../support/refused-inserts.js';
import { ADMIN_PASSWORD, createTestApp, type TestApp } from '../../support/test-app.js';
import { testLogs, type LogLine } from '../../support/test-logs.js';
import { waitFor } from '../../support/wait.js';

const ORIGIN = 'https://pets.example.test';
const COOKIE = 'petstore_refresh';
const WEBHOOK_URL = 'https://8.8.8.8/hooks/pets';

/**
 * Every secret the service handles, sent or received through the real app with every log
 * level on: none may reach a log line, whatever the request's outcome (success, refusal,
 * validation error, a 500 whose URL carries a token).
 */
describe('Secrets and the logs (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'trace', PUBLIC_BASE_URL: `${ORIGIN}/` });
  });
  afterAll(async () => {
    await t.close();
  });

  it('should write no password, token, refresh token, API key, webhook secret, credential header or account token to any line', async () => {
    const secrets: string[] = [ADMIN_PASSWORD];
    const keep = (value: unknown): string => {
      expect(typeof value).toBe('string');
      secrets.push(value as string);
      return value as string;
    };
    testLogs.untaken();

    // Passwords and the tokens a login answers with, in a body and in cookies.
    const user = await createUser(t);
    keep(user.password);
    const login = await t.http
      .post('/v1/auth/login')
      .send({ username: user.username, password: user.password })
      .expect(200);
    keep(login.body.token);
    const refreshed = await t.http
      .post('/v1/auth/refresh')
      .send({ refreshToken: keep(login.body.refreshToken) })
      .expect(200);
    keep(refreshed.body.token);
    keep(refreshed.body.refreshToken);
    await t.http
      .post('/v1/auth/login')
      .send({ username: user.username, password: keep('wrong-password-secret-8d2f') })
      .expect(401);
    const cookieLogin = await t.http
      .post('/v1/auth/login')
      .set('Origin', ORIGIN)
      .send({ username: user.username, password: user.password, refreshTokenIn: 'cookie' })
      .expect(200);
    const setCookie = (cookieLogin.headers['set-cookie'] as unknown as string[])[0];
    const cookieToken = keep(/^petstore_refresh=([^;]+)/.exec(setCookie)?.[1]);
    await t.http
      .post('/v1/auth/refresh')
      .set('Origin', ORIGIN)
      .set('Cookie', `${COOKIE}=${cookieToken}`)
      .send({})
      .expect(200);

    // Bearer tokens and API keys in headers, accepted and refused.
    const key = await createApiKey(t, bearer(login.body.token));
    await t.http
      .get('/v1/pets')
      .set(apiKey(keep(key.key)))
      .expect(200);
    await t.http
      .get('/v1/pets')
      .set(apiKey(keep('pk_test_RefusedKeySecret0123456789abcdefABCDEF')))
      .expect(401);
    await t.http
      .get('/v1/pets')
      .set(bearer(keep('eyJhbGciOiJIUzI1NiJ9.refused-bearer-secret.sig')))
      .expect(401);

    // A webhook's secret, as created and as rotated.
    const webhook = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: WEBHOOK_URL, events: ['pet.created'] })
      .expect(201);
    keep(webhook.body.secret);
    const rotated = await t.http
      .post(`/v1/webhooks/${webhook.body.id}/rotate-secret`)
      .set(t.admin)
      .send({})
      .expect(200);
    keep(rotated.body.secret);

    // Reset and verification tokens in bodies, and tokens in query strings, one of them on a
    // request that fails with a 500 (whose URL the exception filter logs).
    await t.http
      .post('/v1/auth/reset-password')
      .send({ token: keep('reset-token-secret-5c1a9e'), password: keep('new-password-secret-7b') })
      .expect(400);
    await t.http
      .post('/v1/auth/verify-email')
      .send({ token: keep('verify-token-secret-0e44d1') })
      .expect(400);
    await t.http.get(`/v1/pets?token=${keep('query-token-secret-a3f0')}`).set(t.admin);
    const acceptEntries = await refuseInserts(t.dataSource, 'audit_events');
    let failed: string;
    try {
      const res = await t.http
        .post(`/v1/categories?token=${keep('failing-query-token-secret-91bc')}`)
        .set(t.admin)
        .send({ name: 'Logged secrets' })
        .expect(500);
      failed = res.body.requestId as string;
    } finally {
      await acceptEntries();
    }

    const lines: LogLine[] = [];
    await waitFor(() => {
      lines.push(...testLogs.untaken());
      return Promise.resolve(
        lines.some((line) => line.requestId === failed && line.msg === 'request failed'),
      );
    });
    // The lines are there to be searched: one per request (createUser's login too), and the
    // failure's cause.
    expect(lines.filter((line) => line.route === '/v1/auth/login')).toHaveLength(4);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', context: 'Errors', requestId: failed }),
    );
    const output = lines.map((line) => JSON.stringify(line)).join('\n');
    expect(secrets.filter((secret) => output.includes(secret))).toEqual([]);
  });
});
