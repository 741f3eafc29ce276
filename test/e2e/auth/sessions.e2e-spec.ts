import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { apiKey, bearer, createApiKey, createUser, type CreatedUser } from '../../support/auth.js';
import { errorBody, expectError, expectValidationError } from '../../support/errors.js';
import { generousRateLimits } from '../../support/rate-limits.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';

const onServer = process.env.DATABASE_URL ? it : it.skip;
const REFRESH_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;
const THIRTY_DAYS = 30 * 24 * 3600;

interface LoggedIn {
  token: string;
  refreshToken: string;
  sessionId: number;
}

interface ListedSession {
  id: number;
  userAgent: string | null;
  current: boolean;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function sidOf(token: string): number {
  const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  return Number(payload.sid);
}

describe('Sessions and refresh tokens (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function login(user: CreatedUser, userAgent = 'sessions-test/1.0'): Promise<LoggedIn> {
    const res = await t.http
      .post('/v1/auth/login')
      .set('User-Agent', userAgent)
      .send({ username: user.username, password: user.password })
      .expect(200);
    return {
      token: res.body.token,
      refreshToken: res.body.refreshToken,
      sessionId: sidOf(res.body.token),
    };
  }

  const refresh = (refreshToken: unknown) => t.http.post('/v1/auth/refresh').send({ refreshToken });
  const logout = (refreshToken: unknown) => t.http.post('/v1/auth/logout').send({ refreshToken });
  const me = (user: CreatedUser, token: string) =>
    t.http.get(`/v1/users/${user.id}`).set(bearer(token));
  const sessionRow = async (id: number) =>
    (
      await t.dataSource.query<{ tokenHash: string; revoked: boolean }[]>(
        `SELECT token_hash AS "tokenHash", revoked_at IS NOT NULL AS revoked
           FROM sessions WHERE id = $1`,
        [id],
      )
    )[0];

  describe('login and POST /v1/auth/refresh', () => {
    it('should answer a refresh token beside the unchanged token, stored only as its hash', async () => {
      const user = await createUser(t);
      const res = await t.http
        .post('/v1/auth/login')
        .send({ username: user.username, password: user.password });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        token: expect.any(String),
        user: { id: user.id, username: user.username, email: user.email },
        expiresIn: 3600,
        refreshToken: expect.stringMatching(REFRESH_TOKEN),
        refreshExpiresIn: THIRTY_DAYS,
      });
      const row = await sessionRow(sidOf(res.body.token));
      expect(row).toEqual({ tokenHash: sha256(res.body.refreshToken), revoked: false });
      const [{ found }] = await t.dataSource.query<{ found: number }[]>(
        `SELECT count(*) AS found FROM sessions WHERE token_hash = $1`,
        [res.body.refreshToken],
      );
      expect(found).toBe(0);
    });

    it('should spend the token for a new one of the same session, renewing its expiry', async () => {
      const user = await createUser(t);
      const first = await login(user);
      // A session that would end within the hour: the refresh renews it to 30 days.
      await t.dataSource.query(
        `UPDATE sessions SET expires_at = now() + interval '1 hour' WHERE id = $1`,
        [first.sessionId],
      );
      const res = await refresh(first.refreshToken);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        token: expect.any(String),
        user: { id: user.id, username: user.username, email: user.email },
        expiresIn: 3600,
        refreshToken: expect.stringMatching(REFRESH_TOKEN),
        refreshExpiresIn: THIRTY_DAYS,
      });
      expect(res.body.refreshToken).not.toBe(first.refreshToken);
      expect(sidOf(res.body.token)).toBe(first.sessionId);
      const [{ days }] = await t.dataSource.query<{ days: number }[]>(
        `SELECT extract(epoch FROM expires_at - now()) / 86400 AS days FROM sessions WHERE id = $1`,
        [first.sessionId],
      );
      expect(Number(days)).toBeGreaterThan(29.9);
      await me(user, res.body.token).expect(200);
      // The new one refreshes in turn.
      expect((await refresh(res.body.refreshToken)).status).toBe(200);
    });

    it('should revoke the whole session when a spent token is presented again', async () => {
      const user = await createUser(t);
      const first = await login(user);
      const second = (await refresh(first.refreshToken).expect(200)).body;
      const third = (await refresh(second.refreshToken).expect(200)).body;

      const reuse = await refresh(first.refreshToken);
      expectError(reuse, 401, 'INVALID_REFRESH_TOKEN');
      expect((await sessionRow(first.sessionId)).revoked).toBe(true);
      // Every token descended from that login is dead: the newest refresh token, and the
      // access tokens (at once on this instance).
      expectError(await refresh(third.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
      expectError(await me(user, third.token), 401, 'INVALID_TOKEN');
      expectError(await me(user, first.token), 401, 'INVALID_TOKEN');
    });

    it('should answer unknown, malformed, expired, revoked and reused tokens identically', async () => {
      const user = await createUser(t);
      const expired = await login(user);
      await t.dataSource.query(
        `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`,
        [expired.sessionId],
      );
      const revoked = await login(user);
      await logout(revoked.refreshToken).expect(200);
      const reused = await login(user);
      await refresh(reused.refreshToken).expect(200);

      const answers = await Promise.all(
        [
          `rt_${'A'.repeat(43)}`,
          'not a refresh token',
          expired.refreshToken,
          revoked.refreshToken,
          reused.refreshToken,
        ].map(async (token) => {
          const res = await refresh(token);
          return {
            status: res.status,
            challenge: res.headers['www-authenticate'],
            body: { ...res.body, requestId: undefined },
          };
        }),
      );
      expect(answers[0].status).toBe(401);
      expect(answers[0].body).toEqual({
        ...errorBody('INVALID_REFRESH_TOKEN'),
        requestId: undefined,
      });
      for (const answer of answers) expect(answer).toEqual(answers[0]);
    });

    it('should let exactly one of two concurrent refreshes with one token win, the other being reuse', async () => {
      const user = await createUser(t);
      const { refreshToken, sessionId } = await login(user);
      const results = await Promise.all([refresh(refreshToken), refresh(refreshToken)]);
      expect(results.map((res) => res.status).sort()).toEqual([200, 401]);
      const winner = results.find((res) => res.status === 200)!;
      expect((await sessionRow(sessionId)).revoked).toBe(true);
      expectError(await refresh(winner.body.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
    });

    it('should validate the body', async () => {
      expectValidationError(await t.http.post('/v1/auth/refresh').send({}), ['refreshToken']);
    });

    it('should not refresh the session of an account disabled since', async () => {
      const user = await createUser(t);
      const { refreshToken } = await login(user);
      await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ userStatus: 1 }).expect(200);
      expectError(await refresh(refreshToken), 401, 'INVALID_REFRESH_TOKEN');
    });
  });

  describe('POST /v1/auth/logout', () => {
    it('should revoke the session: its refresh token at once, its access tokens too', async () => {
      const user = await createUser(t);
      const session = await login(user);
      const other = await login(user);
      const res = await logout(session.refreshToken);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expectError(await refresh(session.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
      expectError(await me(user, session.token), 401, 'INVALID_TOKEN');
      // Another login of the same user goes on.
      await me(user, other.token).expect(200);
      expect((await refresh(other.refreshToken)).status).toBe(200);
    });

    it('should revoke the session of a spent token too', async () => {
      const user = await createUser(t);
      const session = await login(user);
      const next = (await refresh(session.refreshToken).expect(200)).body;
      await logout(session.refreshToken).expect(200);
      expectError(await refresh(next.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
    });

    it('should answer {} for a token of no active session, and leave API keys alone', async () => {
      const user = await createUser(t);
      const key = await createApiKey(t, user.headers);
      for (const token of [`rt_${'B'.repeat(43)}`, 'anything']) {
        const res = await logout(token);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({});
      }
      const session = await login(user);
      await logout(session.refreshToken).expect(200);
      await logout(session.refreshToken).expect(200);
      await t.http.get(`/v1/users/${user.id}`).set(apiKey(key.key)).expect(200);
    });

    it('should validate the body', async () => {
      expectValidationError(await t.http.post('/v1/auth/logout').send({}), ['refreshToken']);
    });
  });

  describe('GET and DELETE /v1/auth/sessions', () => {
    it('should list the caller’s active sessions, marking the current one', async () => {
      const user = await createUser(t);
      const laptop = await login(user, 'laptop-browser');
      const phone = await login(user, 'phone-app');
      const gone = await login(user, 'gone');
      await logout(gone.refreshToken).expect(200);
      const stranger = await createUser(t);
      await login(stranger);

      const res = await t.http.get('/v1/auth/sessions').set(bearer(phone.token));
      expect(res.status).toBe(200);
      const listed = res.body.sessions as ListedSession[];
      const mine = listed.filter((s) =>
        ['laptop-browser', 'phone-app', 'gone'].includes(s.userAgent ?? ''),
      );
      expect(mine).toEqual([
        {
          id: phone.sessionId,
          createdAt: expect.any(String),
          lastUsedAt: expect.any(String),
          userAgent: 'phone-app',
          ip: expect.any(String),
          current: true,
        },
        {
          id: laptop.sessionId,
          createdAt: expect.any(String),
          lastUsedAt: expect.any(String),
          userAgent: 'laptop-browser',
          ip: expect.any(String),
          current: false,
        },
      ]);
      // createUser's own login, and nothing of anyone else's.
      expect(res.body.sessions).toHaveLength(3);
    });

    it('should cut a long User-Agent to 256 characters', async () => {
      const user = await createUser(t);
      const session = await login(user, 'x'.repeat(1000));
      const res = await t.http.get('/v1/auth/sessions').set(bearer(session.token)).expect(200);
      const current = (res.body.sessions as ListedSession[]).find((s) => s.current);
      expect(current?.userAgent).toBe('x'.repeat(256));
    });

    it('should take a bearer token only', async () => {
      const user = await createUser(t);
      const key = await createApiKey(t, user.headers);
      expectError(
        await t.http.get('/v1/auth/sessions').set(apiKey(key.key)),
        403,
        'INSUFFICIENT_PERMISSIONS',
      );
      expectError(await t.http.get('/v1/auth/sessions'), 401, 'AUTHENTICATION_REQUIRED');
    });

    it('should revoke one of the caller’s sessions, and 404 anyone else’s', async () => {
      const user = await createUser(t);
      const keep = await login(user);
      const drop = await login(user);
      const stranger = await createUser(t);
      const theirs = await login(stranger);

      const res = await t.http
        .delete(`/v1/auth/sessions/${drop.sessionId}`)
        .set(bearer(keep.token));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expectError(await refresh(drop.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
      expectError(await me(user, drop.token), 401, 'INVALID_TOKEN');

      for (const id of [theirs.sessionId, drop.sessionId, 999_999_999]) {
        expectError(
          await t.http.delete(`/v1/auth/sessions/${id}`).set(bearer(keep.token)),
          404,
          'SESSION_NOT_FOUND',
        );
      }
      expect((await refresh(theirs.refreshToken)).status).toBe(200);
    });
  });

  describe('DELETE /v1/users/{id}/sessions', () => {
    it('should revoke every session of the user, and leave its API keys alone', async () => {
      const user = await createUser(t);
      const key = await createApiKey(t, user.headers);
      const sessions = [await login(user), await login(user)];

      const res = await t.http.delete(`/v1/users/${user.id}/sessions`).set(t.admin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      for (const session of sessions) {
        expectError(await refresh(session.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
        expectError(await me(user, session.token), 401, 'INVALID_TOKEN');
      }
      await t.http.get(`/v1/users/${user.id}`).set(apiKey(key.key)).expect(200);
      // A new login works.
      await me(user, (await login(user)).token).expect(200);
    });

    it('should be for admins, and 404 an unknown user', async () => {
      const user = await createUser(t);
      expectError(
        await t.http.delete(`/v1/users/${user.id}/sessions`).set(user.headers),
        403,
        'INSUFFICIENT_PERMISSIONS',
      );
      expectError(
        await t.http.delete('/v1/users/999999999/sessions').set(t.admin),
        404,
        'USER_NOT_FOUND',
      );
    });
  });

  describe('account changes', () => {
    it('should revoke every session when the password changes', async () => {
      const user = await createUser(t);
      const session = await login(user);
      await t.http
        .put(`/v1/users/${user.id}`)
        .set(t.admin)
        .send({ password: 'a brand new password' })
        .expect(200);
      expect((await sessionRow(session.sessionId)).revoked).toBe(true);
      expectError(await refresh(session.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
    });

    it('should revoke every session when the account is disabled, and not bring them back', async () => {
      const user = await createUser(t);
      const session = await login(user);
      await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ userStatus: 1 }).expect(200);
      expect((await sessionRow(session.sessionId)).revoked).toBe(true);
      await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ userStatus: 0 }).expect(200);
      expectError(await refresh(session.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
    });

    it('should keep the sessions on other changes', async () => {
      const user = await createUser(t);
      const session = await login(user);
      await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ firstName: 'Ann' }).expect(200);
      expect((await refresh(session.refreshToken)).status).toBe(200);
    });

    it('should delete the sessions with their user', async () => {
      const user = await createUser(t);
      const session = await login(user);
      await refresh(session.refreshToken).expect(200);
      await t.http.delete(`/v1/users/${user.id}`).set(t.admin).expect(200);
      const [{ left }] = await t.dataSource.query<{ left: number }[]>(
        `SELECT (SELECT count(*) FROM sessions WHERE user_id = $1)
              + (SELECT count(*) FROM spent_refresh_tokens WHERE session_id = $2) AS left`,
        [user.id, session.sessionId],
      );
      expect(left).toBe(0);
      expectError(await refresh(session.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
    });
  });

  // Two instances in one process cannot share PGlite's data directory: on PGlite,
  // sessions.service.spec.ts shows the cache's TTL.
  onServer(
    'should refuse the access tokens of a session revoked on another instance within ACCESS_STATE_CACHE_TTL_MS',
    async () => {
      const env = { ACCESS_STATE_CACHE_TTL_MS: '300' };
      const first = await createTestApp(env);
      const second = await createTestApp(env, { database: first.database });
      try {
        const user = await createUser(first);
        const session = (
          await first.http
            .post('/v1/auth/login')
            .send({ username: user.username, password: user.password })
            .expect(200)
        ).body;
        // The second instance has read the session as live, and caches it.
        await second.http.get(`/v1/users/${user.id}`).set(bearer(session.token)).expect(200);
        await first.http
          .post('/v1/auth/logout')
          .send({ refreshToken: session.refreshToken })
          .expect(200);
        await waitFor(async () => {
          const res = await second.http.get(`/v1/users/${user.id}`).set(bearer(session.token));
          return res.status === 401 && res.body.code === 'INVALID_TOKEN';
        });
      } finally {
        await second.close();
        await first.close();
      }
    },
  );
});

describe('Sessions: rate limits (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(
      {
        ...generousRateLimits(),
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3',
        REFRESH_TOKEN_TTL_SECONDS: '600',
      },
      { signIn: false },
    );
  });
  afterAll(async () => {
    await t.close();
  });

  it('should count refresh and logout on the address’s anonymous budget, as login', async () => {
    const login = await t.http
      .post('/v1/auth/login')
      .send({ username: t.adminUser.username, password: t.adminUser.password });
    expect(login.status).toBe(200);
    expect(login.body.refreshExpiresIn).toBe(600);
    expect(login.headers['x-ratelimit-remaining']).toBe('2');
    const refreshed = await t.http
      .post('/v1/auth/refresh')
      .send({ refreshToken: login.body.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refreshExpiresIn).toBe(600);
    expect(refreshed.headers['x-ratelimit-remaining']).toBe('1');
    const out = await t.http
      .post('/v1/auth/logout')
      .send({ refreshToken: refreshed.body.refreshToken });
    expect(out.status).toBe(200);
    expect(out.headers['x-ratelimit-remaining']).toBe('0');
    expectError(
      await t.http.post('/v1/auth/refresh').send({ refreshToken: refreshed.body.refreshToken }),
      429,
      'RATE_LIMIT_EXCEEDED',
    );
  });
});
