import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { bearer } from '../../support/auth.js';
import { expectError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const LOOPBACK = /^(::ffff:)?127\.0\.0\.1$|^::1$/;
const ANONYMOUS_PER_MINUTE = 3;

// What a client that reaches the instance directly may put in X-Forwarded-For.
const NOT_ADDRESSES = [
  '<svg onload=alert(1)>',
  'x'.repeat(46),
  `fe80::1%${'z'.repeat(60)}`,
  'unknown',
  '1.2.3.4.5',
];

describe('The client address behind a proxy (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ TRUST_PROXY: '1' });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    await t.dataSource.query('TRUNCATE audit_events');
  });

  const login = (forwardedFor: string) =>
    t.http
      .post('/v1/auth/login')
      .set('X-Forwarded-For', forwardedFor)
      .send({ username: t.plainUser.username, password: t.plainUser.password });

  /** The address the session of `token` and the last login's audit entry recorded. */
  const recordedAddresses = async (token: string) => {
    const sessions = await t.http.get('/v1/auth/sessions').set(bearer(token)).expect(200);
    const current = (sessions.body.sessions as { ip: string; current: boolean }[]).find(
      (session) => session.current,
    );
    const audit = await t.http
      .get('/v1/audit-events?action=auth.login&limit=1')
      .set(t.admin)
      .expect(200);
    return { session: current?.ip, audit: audit.body.auditEvents[0].ip as string };
  };

  it('should take an IP address from X-Forwarded-For', async () => {
    const res = await login('203.0.113.7');
    expect(res.status).toBe(200);
    expect(await recordedAddresses(res.body.token)).toEqual({
      session: '203.0.113.7',
      audit: '203.0.113.7',
    });
  });

  it.each(NOT_ADDRESSES)(
    'should ignore X-Forwarded-For %p, recording the socket address and still logging in',
    async (forwardedFor) => {
      const res = await login(forwardedFor);
      expect(res.status).toBe(200);
      expect(await recordedAddresses(res.body.token)).toEqual({
        session: expect.stringMatching(LOOPBACK),
        audit: expect.stringMatching(LOOPBACK),
      });
    },
  );

  it('should count anonymous requests with made-up addresses against the socket address', async () => {
    const limited = await createTestApp(
      { TRUST_PROXY: '1', RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(ANONYMOUS_PER_MINUTE) },
      { signIn: false },
    );
    try {
      for (let i = 0; i < ANONYMOUS_PER_MINUTE; i++) {
        const res = await limited.http.get('/v1/pets').set('X-Forwarded-For', `client-${i}`);
        expectError(res, 401, 'AUTHENTICATION_REQUIRED');
      }
      const refused = await limited.http
        .get('/v1/pets')
        .set('X-Forwarded-For', '<svg onload=alert(1)>');
      expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    } finally {
      await limited.close();
    }
  });
});
