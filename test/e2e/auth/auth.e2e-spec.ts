import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { generateApiKey } from '../../../src/auth/api-key-format.js';
import { PasswordService } from '../../../src/users/password.service.js';
import { bearer, createApiKey, createUser, signToken, validClaims } from '../../support/auth.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { errorBody } from '../../support/errors.js';
import { waitFor } from '../../support/wait.js';

const BEARER_CHALLENGE = 'Bearer realm="petstore"';

function decode(token: string): { header: unknown; payload: Record<string, number> } {
  const [header, payload] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString()),
  };
}

describe('Auth (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v1/auth/login', () => {
    it('should issue a token for the bootstrap admin with no-store caching', async () => {
      const res = await t.http
        .post('/v1/auth/login')
        .send({ username: t.adminUser.username, password: t.adminUser.password });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        token: expect.any(String),
        user: { id: t.adminUser.id, username: 'admin', email: 'admin@petstore.invalid' },
        expiresIn: 3600,
        refreshToken: expect.stringMatching(/^rt_[A-Za-z0-9_-]{43}$/),
        refreshExpiresIn: 30 * 24 * 3600,
      });
    });

    it('should sign HS256 tokens with sub, username, role, sid, jti, iss, aud and a one-hour exp', async () => {
      const res = await t.http
        .post('/v1/auth/login')
        .send({ username: t.plainUser.username, password: t.plainUser.password });
      const { header, payload } = decode(res.body.token);
      expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
      expect(payload).toEqual({
        sub: String(t.plainUser.id),
        username: t.plainUser.username,
        role: 'user',
        sid: expect.stringMatching(/^[1-9]\d*$/),
        jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
        iat: expect.any(Number),
        exp: payload.iat + 3600,
        iss: t.jwt.issuer,
        aud: t.jwt.audience,
      });
    });

    it('should match the username case-insensitively', async () => {
      const res = await t.http
        .post('/v1/auth/login')
        .send({ username: t.plainUser.username.toUpperCase(), password: t.plainUser.password });
      expect(res.status).toBe(200);
      expect(res.body.user.username).toBe(t.plainUser.username);
    });

    it('should answer a wrong password and an unknown user identically', async () => {
      const wrong = await t.http
        .post('/v1/auth/login')
        .send({ username: t.plainUser.username, password: 'not the password' });
      const unknown = await t.http
        .post('/v1/auth/login')
        .send({ username: 'nobody.here', password: 'not the password' });
      for (const res of [wrong, unknown]) {
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe(BEARER_CHALLENGE);
        expect(res.body).toEqual(errorBody('INVALID_CREDENTIALS'));
      }
      expect(wrong.body.message).toBe(unknown.body.message);
    });

    it('should verify one argon2 hash of the same cost for an unknown, wrong or disabled login', async () => {
      // The time that would tell them apart is argon2's; counting its runs and comparing
      // their parameters shows the paths alike without timing them (the bench times them).
      const disabled = await createUser(t, { userStatus: 1 });
      const verifications = jest.spyOn(t.app.get(PasswordService), 'verifyHash');
      const argon2RunsFor = async (username: string, password: string) => {
        verifications.mockClear();
        const res = await t.http.post('/v1/auth/login').send({ username, password });
        expect(res.status).toBe(401);
        // A PHC string's algorithm, version and cost: `$argon2id$v=19$m=…,p=…,t=…`.
        return verifications.mock.calls.map(([hash]) => hash.split('$').slice(0, 4).join('$'));
      };
      try {
        const wrong = await argon2RunsFor(t.plainUser.username, 'not the password');
        expect(wrong).toEqual([expect.stringMatching(/^\$argon2id\$v=19\$m=\d+,p=\d+,t=\d+$/)]);
        expect(await argon2RunsFor('nobody.here', 'not the password')).toEqual(wrong);
        expect(await argon2RunsFor(disabled.username, disabled.password)).toEqual(wrong);
      } finally {
        verifications.mockRestore();
      }
    });

    it('should refuse a disabled user with INVALID_CREDENTIALS', async () => {
      const user = await createUser(t, { userStatus: 1 });
      const res = await t.http
        .post('/v1/auth/login')
        .send({ username: user.username, password: user.password });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody('INVALID_CREDENTIALS'));
    });

    it('should refuse a pending user 403 EMAIL_NOT_VERIFIED with the right password only', async () => {
      const user = await createUser(t, { userStatus: 2 });
      const right = await t.http
        .post('/v1/auth/login')
        .send({ username: user.username, password: user.password });
      expect(right.status).toBe(403);
      expect(right.body).toEqual(errorBody('EMAIL_NOT_VERIFIED'));
      const wrong = await t.http
        .post('/v1/auth/login')
        .send({ username: user.username, password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual(errorBody('INVALID_CREDENTIALS'));
    });

    it('should refuse a body without a password', async () => {
      const res = await t.http.post('/v1/auth/login').send({ username: 'admin' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });

    it('should stay public when a bad credential is also sent', async () => {
      const res = await t.http
        .post('/v1/auth/login')
        .set(bearer('garbage'))
        .send({ username: t.plainUser.username, password: t.plainUser.password });
      expect(res.status).toBe(200);
    });
  });

  describe('credentials', () => {
    it('should refuse a request without credentials with AUTHENTICATION_REQUIRED', async () => {
      const res = await t.http.get('/v1/pets');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(
        'Bearer realm="petstore", ApiKey header="X-API-Key"',
      );
      expect(res.body).toEqual(errorBody('AUTHENTICATION_REQUIRED'));
    });

    it('should accept the issued token', async () => {
      const res = await t.http.get('/v1/pets').set(t.user);
      expect(res.status).toBe(200);
    });

    it('should accept a token signed as the service signs them', async () => {
      const token = signToken(validClaims(t, { id: t.plainUser.id, username: 'x' }), {
        secret: t.jwt.secret,
      });
      const res = await t.http.get('/v1/pets').set(bearer(token));
      expect(res.status).toBe(200);
    });

    const forgeries: [string, (t: TestApp) => string][] = [
      ['a malformed token', () => 'not-a-jwt'],
      ['a token in another scheme', () => 'Basic YWRtaW46YWRtaW4='],
      [
        'a token with a tampered payload',
        (t) => {
          const [head, , signature] = (t.user.Authorization ?? '').slice(7).split('.');
          const payload = Buffer.from(
            JSON.stringify(validClaims(t, { ...t.plainUser, role: 'admin' })),
          ).toString('base64url');
          return `${head}.${payload}.${signature}`;
        },
      ],
      ['alg none', (t) => signToken(validClaims(t, t.plainUser), { alg: 'none' })],
      ['another secret', (t) => signToken(validClaims(t, t.plainUser), { secret: 'x'.repeat(48) })],
      [
        'HS512 with the right secret',
        (t) => signToken(validClaims(t, t.plainUser), { secret: t.jwt.secret, alg: 'HS512' }),
      ],
      [
        'a wrong issuer',
        (t) =>
          signToken(
            { ...validClaims(t, t.plainUser), iss: 'someone-else' },
            { secret: t.jwt.secret },
          ),
      ],
      [
        'a wrong audience',
        (t) =>
          signToken({ ...validClaims(t, t.plainUser), aud: 'other-api' }, { secret: t.jwt.secret }),
      ],
      [
        'no exp',
        (t) => {
          const claims = validClaims(t, t.plainUser);
          delete claims.exp;
          return signToken(claims, { secret: t.jwt.secret });
        },
      ],
      [
        'a lifetime longer than an hour',
        (t) => {
          const claims = validClaims(t, t.plainUser);
          return signToken(
            { ...claims, exp: Number(claims.exp) + 86_400 },
            { secret: t.jwt.secret },
          );
        },
      ],
      [
        'a non-numeric subject',
        (t) =>
          signToken({ ...validClaims(t, t.plainUser), sub: 'admin' }, { secret: t.jwt.secret }),
      ],
    ];

    it.each(forgeries)('should refuse %s with INVALID_TOKEN', async (_case, forge) => {
      const value = forge(t);
      const header = value.startsWith('Basic ') ? value : `Bearer ${value}`;
      const res = await t.http.get('/v1/pets').set('Authorization', header);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(`${BEARER_CHALLENGE}, error="invalid_token"`);
      expect(res.body).toEqual(errorBody('INVALID_TOKEN'));
    });

    it('should point an API key sent as a bearer token to X-API-Key, without echoing it', async () => {
      const { key } = await createApiKey(t, t.user, 'live');
      const mistyped = `pk_test_${'x'.repeat(12)}`;

      for (const value of [key, generateApiKey('test'), mistyped]) {
        const res = await t.http.get('/v1/pets').set(bearer(value));

        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe(`${BEARER_CHALLENGE}, error="invalid_token"`);
        expect(res.body).toEqual(errorBody('INVALID_TOKEN'));
        expect(res.body.message).toContain('X-API-Key');
        expect(res.body.message).not.toMatch(/malformed/);
        expect(res.text).not.toContain(value.slice(8));
      }
    });

    it('should keep the reason for a malformed token that does not look like an API key', async () => {
      const res = await t.http.get('/v1/pets').set(bearer('pk_prod_not-a-key'));

      expect(res.body.message).toBe('The bearer token is not valid: jwt malformed');
    });

    it('should refuse an expired token with EXPIRED_TOKEN and when it expired', async () => {
      const issuedAt = Math.floor(Date.now() / 1000) - 7200;
      const token = signToken(validClaims(t, t.plainUser, issuedAt), { secret: t.jwt.secret });
      const before = Date.now();
      const res = await t.http.get('/v1/pets').set(bearer(token));
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(res.body).toEqual(
        errorBody('EXPIRED_TOKEN', {
          expired_at: new Date((issuedAt + 3600) * 1000).toISOString(),
          current_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        }),
      );
      expect(Date.parse(res.body.details.current_time)).toBeGreaterThanOrEqual(before - 1000);
    });

    it('should refuse a token accepted before once its expiry has passed', async () => {
      // Issued so that it expires two seconds from now (a token lives exactly one hour).
      const expiresAt = Math.floor(Date.now() / 1000) + 2;
      const claims = validClaims(t, t.plainUser, expiresAt - 3600);
      const token = signToken(claims, { secret: t.jwt.secret });
      await t.http.get('/v1/pets').set(bearer(token)).expect(200);

      await waitFor(() => Promise.resolve(Date.now() >= expiresAt * 1000));
      const res = await t.http.get('/v1/pets').set(bearer(token));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(
        errorBody('EXPIRED_TOKEN', {
          expired_at: new Date(expiresAt * 1000).toISOString(),
          current_time: expect.any(String),
        }),
      );
    });

    it('should take the role from the account, not from the token', async () => {
      const token = signToken(validClaims(t, { ...t.plainUser, role: 'admin' }), {
        secret: t.jwt.secret,
      });
      const res = await t.http.get('/v1/users').set(bearer(token));
      expect(res.status).toBe(403);
      expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
    });

    it('should refuse the token of a deleted user', async () => {
      const user = await createUser(t);
      await t.http.delete(`/v1/users/${user.id}`).set(t.admin).expect(200);
      const res = await t.http.get('/v1/pets').set(user.headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody('INVALID_TOKEN'));
    });

    it('should refuse the token of a user disabled after login', async () => {
      const user = await createUser(t);
      await t.http.get('/v1/pets').set(user.headers).expect(200);
      await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ userStatus: 1 }).expect(200);
      const res = await t.http.get('/v1/pets').set(user.headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody('INVALID_TOKEN'));
    });
  });

  describe('roles', () => {
    it('should let any user read categories and pets', async () => {
      await t.http.get('/v1/categories').set(t.user).expect(200);
      await t.http.get('/v1/pets').set(t.user).expect(200);
    });

    it.each([
      ['POST', '/v1/categories'],
      ['PUT', '/v1/categories/1'],
      ['DELETE', '/v1/categories/1'],
    ])('should refuse %s %s to a plain user', async (method, path) => {
      const res = await t.http[method.toLowerCase() as 'post' | 'put' | 'delete'](path)
        .set(t.user)
        .send({ name: 'Birds' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
    });
  });
});
