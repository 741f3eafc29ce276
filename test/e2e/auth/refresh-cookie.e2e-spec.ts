import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, createUser, type CreatedUser } from '../../support/auth.js';
import { errorBody, expectError, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const OWN_ORIGIN = 'https://pets.example.test';
const COOKIE = 'petstore_refresh';
const REFRESH_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;
const THIRTY_DAYS = 30 * 24 * 3600;
const PATHS = ['/v1/auth/refresh', '/v1/auth/logout'];

interface SetCookie {
  name: string;
  value: string;
  attributes: Record<string, string>;
}

/** The Set-Cookie lines of an answer, parsed: attribute names lower-cased, flags as ''. */
function setCookies(res: Response): SetCookie[] {
  const header = res.headers['set-cookie'] as unknown as string[] | undefined;
  return (header ?? []).map((line) => {
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    return {
      name: pair.slice(0, at),
      value: pair.slice(at + 1),
      attributes: Object.fromEntries(
        attributes.map((attribute) => {
          const eq = attribute.indexOf('=');
          return eq < 0
            ? [attribute.toLowerCase(), '']
            : [attribute.slice(0, eq).toLowerCase(), attribute.slice(eq + 1)];
        }),
      ),
    };
  });
}

/** The refresh token the answer set, after checking both cookies carry it with every attribute. */
function expectRefreshCookies(res: Response): string {
  const cookies = setCookies(res);
  expect(cookies).toEqual(
    PATHS.map((path) => ({
      name: COOKIE,
      value: expect.stringMatching(REFRESH_TOKEN),
      attributes: {
        'max-age': String(THIRTY_DAYS),
        path,
        expires: expect.any(String),
        httponly: '',
        secure: '',
        samesite: 'Strict',
      },
    })),
  );
  const expires = Date.parse(cookies[0].attributes.expires);
  expect(Math.abs(expires - (Date.now() + THIRTY_DAYS * 1000))).toBeLessThan(60_000);
  expect(cookies[1].value).toBe(cookies[0].value);
  return cookies[0].value;
}

function expectClearedCookies(res: Response): void {
  expect(setCookies(res)).toEqual(
    PATHS.map((path) => ({
      name: COOKIE,
      value: '',
      attributes: {
        path,
        expires: 'Thu, 01 Jan 1970 00:00:00 GMT',
        httponly: '',
        secure: '',
        samesite: 'Strict',
      },
    })),
  );
}

describe('The web console’s refresh cookie (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_BASE_URL: `${OWN_ORIGIN}/` });
  });
  afterAll(async () => {
    await t.close();
  });

  const cookieLogin = (user: CreatedUser, origin: string | null = OWN_ORIGIN) => {
    const req = t.http.post('/v1/auth/login');
    if (origin !== null) req.set('Origin', origin);
    return req.send({ username: user.username, password: user.password, refreshTokenIn: 'cookie' });
  };
  const withCookie = (path: string, token: string, origin: string | null = OWN_ORIGIN) => {
    const req = t.http.post(path).set('Cookie', `other=1; ${COOKIE}=${token}`);
    if (origin !== null) req.set('Origin', origin);
    return req.send({});
  };

  async function loggedInWithCookie(): Promise<{ user: CreatedUser; cookie: string }> {
    const user = await createUser(t);
    const res = await cookieLogin(user).expect(200);
    return { user, cookie: expectRefreshCookies(res) };
  }

  describe('login with refreshTokenIn: cookie', () => {
    it('should set the refresh token as two path-scoped HttpOnly cookies and leave it out of the body', async () => {
      const user = await createUser(t);
      const res = await cookieLogin(user);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        token: expect.any(String),
        user: { id: user.id, username: user.username, email: user.email },
        expiresIn: 3600,
        refreshExpiresIn: THIRTY_DAYS,
      });
      const cookie = expectRefreshCookies(res);
      // The cookie's token is a working refresh token.
      const refreshed = await t.http.post('/v1/auth/refresh').send({ refreshToken: cookie });
      expect(refreshed.status).toBe(200);
    });

    it('should answer as before, with no cookie, for a login without it or with refreshTokenIn: body', async () => {
      const user = await createUser(t);
      for (const extra of [{}, { refreshTokenIn: 'body' }]) {
        const res = await t.http
          .post('/v1/auth/login')
          .set('Origin', OWN_ORIGIN)
          .send({ username: user.username, password: user.password, ...extra });
        expect(res.status).toBe(200);
        expect(res.body.refreshToken).toMatch(REFRESH_TOKEN);
        expect(res.headers['set-cookie']).toBeUndefined();
      }
    });

    it('should refuse another refreshTokenIn value', async () => {
      const user = await createUser(t);
      for (const refreshTokenIn of ['header', null, true]) {
        expectValidationError(
          await t.http
            .post('/v1/auth/login')
            .send({ username: user.username, password: user.password, refreshTokenIn }),
          ['refreshTokenIn'],
        );
      }
    });

    it('should refuse the cookie to another Origin or none with 403 ORIGIN_NOT_ALLOWED, starting no session', async () => {
      const user = await createUser(t);
      const sessionsOf = async () =>
        (
          await t.dataSource.query<{ sessions: number }[]>(
            `SELECT count(*)::int AS sessions FROM sessions WHERE user_id = $1`,
            [user.id],
          )
        )[0].sessions;
      const before = await sessionsOf();
      for (const origin of ['https://evil.example', 'http://pets.example.test', 'null', null]) {
        const res = await cookieLogin(user, origin);
        expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      expect(await sessionsOf()).toBe(before);
    });
  });

  describe('POST /v1/auth/refresh through the cookie', () => {
    it('should rotate: a new token in new cookies, out of the body, and the old cookie spent', async () => {
      const { user, cookie } = await loggedInWithCookie();
      const res = await withCookie('/v1/auth/refresh', cookie);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        token: expect.any(String),
        user: { id: user.id, username: user.username, email: user.email },
        expiresIn: 3600,
        refreshExpiresIn: THIRTY_DAYS,
      });
      const rotated = expectRefreshCookies(res);
      expect(rotated).not.toBe(cookie);
      await t.http.get(`/v1/users/${user.id}`).set(bearer(res.body.token)).expect(200);
      // The new cookie refreshes in turn.
      expectRefreshCookies(await withCookie('/v1/auth/refresh', rotated).expect(200));
    });

    it('should clear the cookie when it is refused, and a reuse revokes the session', async () => {
      const { cookie } = await loggedInWithCookie();
      const rotated = expectRefreshCookies(
        await withCookie('/v1/auth/refresh', cookie).expect(200),
      );
      const reuse = await withCookie('/v1/auth/refresh', cookie);
      expectError(reuse, 401, 'INVALID_REFRESH_TOKEN');
      expectClearedCookies(reuse);
      // The reuse revoked the session of the current cookie too.
      const current = await withCookie('/v1/auth/refresh', rotated);
      expectError(current, 401, 'INVALID_REFRESH_TOKEN');
      expectClearedCookies(current);
      const unknown = await withCookie('/v1/auth/refresh', 'rt_unknown');
      expectError(unknown, 401, 'INVALID_REFRESH_TOKEN');
      expectClearedCookies(unknown);
    });

    it('should refuse the cookie from another Origin or none, leaving the cookie and session alone', async () => {
      const { cookie } = await loggedInWithCookie();
      for (const origin of ['https://evil.example', `${OWN_ORIGIN}:8443`, null]) {
        const res = await withCookie('/v1/auth/refresh', cookie, origin);
        expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      // Nothing was spent.
      expectRefreshCookies(await withCookie('/v1/auth/refresh', cookie).expect(200));
    });

    it('should prefer a refreshToken in the body, answering it in the body as before', async () => {
      const { cookie } = await loggedInWithCookie();
      const other = await t.http
        .post('/v1/auth/login')
        .send({ username: t.plainUser.username, password: t.plainUser.password })
        .expect(200);
      const res = await t.http
        .post('/v1/auth/refresh')
        .set('Cookie', `${COOKIE}=${cookie}`)
        .send({ refreshToken: other.body.refreshToken });
      expect(res.status).toBe(200);
      expect(res.body.refreshToken).toMatch(REFRESH_TOKEN);
      expect(res.body.user.id).toBe(t.plainUser.id);
      expect(res.headers['set-cookie']).toBeUndefined();
      // The cookie was not read, so it still works.
      await withCookie('/v1/auth/refresh', cookie).expect(200);
    });

    it('should still require refreshToken with neither body token nor cookie', async () => {
      expectValidationError(
        await t.http.post('/v1/auth/refresh').set('Origin', OWN_ORIGIN).send({}),
        ['refreshToken'],
      );
      expectValidationError(
        await t.http
          .post('/v1/auth/refresh')
          .set('Cookie', `${COOKIE}=`)
          .set('Origin', OWN_ORIGIN)
          .send({}),
        ['refreshToken'],
      );
    });
  });

  describe('POST /v1/auth/logout through the cookie', () => {
    it('should revoke the session and clear the cookie', async () => {
      const { user, cookie } = await loggedInWithCookie();
      const refreshed = await withCookie('/v1/auth/refresh', cookie).expect(200);
      const current = expectRefreshCookies(refreshed);
      const res = await withCookie('/v1/auth/logout', current);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expectClearedCookies(res);
      const again = await withCookie('/v1/auth/refresh', current);
      expectError(again, 401, 'INVALID_REFRESH_TOKEN');
      const revoked = await t.http.get(`/v1/users/${user.id}`).set(bearer(refreshed.body.token));
      expect({ status: revoked.status, body: revoked.body }).toEqual({
        status: 401,
        body: errorBody('INVALID_TOKEN'),
      });
    });

    it('should refuse the cookie from another Origin or none, leaving the session alone', async () => {
      const { cookie } = await loggedInWithCookie();
      for (const origin of ['https://evil.example', null]) {
        const res = await withCookie('/v1/auth/logout', cookie, origin);
        expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      await withCookie('/v1/auth/refresh', cookie).expect(200);
    });
  });
});

describe('The refresh cookie without PUBLIC_BASE_URL (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('should take the origin the request was sent to as the service’s own', async () => {
    const user = await createUser(t);
    const login = (origin: string) =>
      t.http
        .post('/v1/auth/login')
        .set('Host', 'pets.internal:3000')
        .set('Origin', origin)
        .send({ username: user.username, password: user.password, refreshTokenIn: 'cookie' });
    expectRefreshCookies(await login('http://pets.internal:3000').expect(200));
    expectError(await login('http://pets.internal:3001'), 403, 'ORIGIN_NOT_ALLOWED');
  });
});
