import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { generate } from 'otplib';
import { Clock } from '../../../src/common/clock.js';
import { PublishedOpenApi } from '../../../src/openapi/published-openapi.js';
import { bearer, createUser, type CreatedUser, type Headers } from '../../support/auth.js';
import { errorBody, expectError, expectValidationError } from '../../support/errors.js';
import { TestSmtpServer } from '../../support/smtp-server.js';
import { mfaTokenOf, userAuditOf } from '../../support/mfa.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';

/*
 * Contract section 9, "Staff sign-in: second factors": TOTP enrolment, the login's second
 * step, recovery codes, removal, and the roles that must have a factor. The service's Clock
 * is moved by the test (TOTP steps of 30 s); codes are computed here from the secret.
 */
const STEP = 30;
// The middle of a time step, so that ±1 step is ±30 s whatever the rounding.
const START = Date.UTC(2026, 11, 7, 12, 0, 15);
const RECOVERY_CODE = /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/;
const MFA_TOKEN = /^mfa_[A-Za-z0-9_-]{43}$/;
const BASE_URL = 'https://shop.example.com';

interface Enrolled {
  user: CreatedUser;
  secret: string;
  recoveryCodes: string[];
}

describe('Second factor: TOTP (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let now: number;

  beforeAll(async () => {
    smtp = await TestSmtpServer.start();
    t = await createTestApp({
      LOGIN_LOCKOUT_FAILURES: '5',
      LOGIN_LOCKOUT_SECONDS: '300',
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: BASE_URL,
      OUTBOX_POLL_INTERVAL_MS: '50',
    });
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });
  beforeEach(() => {
    now = START;
  });

  /** The code of `secret` for the step `steps` away from the service's current time. */
  const codeAt = (secret: string, steps = 0) =>
    generate({ secret, epoch: Math.floor(now / 1000) + steps * STEP });
  const nextStep = () => {
    now += STEP * 1000;
  };

  const enrol = (headers: Headers) => t.http.post('/v1/auth/mfa/totp').set(headers);
  const confirm = (headers: Headers, code: string) =>
    t.http.post('/v1/auth/mfa/totp/confirm').set(headers).send({ code });
  const login = (user: { username: string; password: string }) =>
    t.http.post('/v1/auth/login').send({ username: user.username, password: user.password });
  const verify = (body: Record<string, unknown>) => t.http.post('/v1/auth/mfa/verify').send(body);
  const removeOwn = (headers: Headers, body: Record<string, unknown>) =>
    t.http.delete('/v1/auth/mfa/totp').set(headers).send(body);

  async function enrolled(fields: Record<string, unknown> = {}): Promise<Enrolled> {
    const user = await createUser(t, fields);
    const { secret } = (await enrol(user.headers).expect(200)).body as { secret: string };
    const res = await confirm(user.headers, await codeAt(secret)).expect(200);
    // Past the confirmation's step and the window around it: each test starts with fresh codes.
    now += 3 * STEP * 1000;
    return { user, secret, recoveryCodes: res.body.recoveryCodes as string[] };
  }

  /** A login's first step: the mfaToken of its 401 MFA_REQUIRED. */

  describe('enrolment', () => {
    it('should answer a secret and its otpauth URL, pending until confirmed, stored encrypted', async () => {
      const user = await createUser(t);
      const res = await enrol(user.headers);

      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
        otpauthUrl: expect.stringMatching(/^otpauth:\/\/totp\/Petstore:/),
      });
      const url = new URL(res.body.otpauthUrl);
      expect(url.searchParams.get('secret')).toBe(res.body.secret);
      expect(url.searchParams.get('issuer')).toBe('Petstore');
      expect(url.host).toBe('totp');
      expect(decodeURIComponent(url.pathname)).toBe(`/Petstore:${user.username}`);
      const [row] = await t.dataSource.query<{ secret: string; confirmed: boolean }[]>(
        `SELECT secret, confirmed_at IS NOT NULL AS confirmed FROM totp_factors WHERE user_id = $1`,
        [user.id],
      );
      expect(row.confirmed).toBe(false);
      expect(row.secret).not.toContain(res.body.secret);
      // Not yet a factor: the login still needs only the password.
      expect((await login(user)).status).toBe(200);
    });

    it('should confirm with a code for 10 recovery codes, stored hashed, audited', async () => {
      const user = await createUser(t);
      const { secret } = (await enrol(user.headers).expect(200)).body;
      const res = await confirm(user.headers, await codeAt(secret));

      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body.recoveryCodes).toHaveLength(10);
      expect(new Set(res.body.recoveryCodes).size).toBe(10);
      for (const code of res.body.recoveryCodes) expect(code).toMatch(RECOVERY_CODE);
      const stored = await t.dataSource.query<{ codeHash: string }[]>(
        `SELECT code_hash AS "codeHash" FROM recovery_codes WHERE user_id = $1`,
        [user.id],
      );
      expect(stored).toHaveLength(10);
      for (const { codeHash } of stored) expect(codeHash).toMatch(/^[0-9a-f]{64}$/);
      expect(await userAuditOf(t, user.id, 'auth.mfa_enrolled')).toEqual([
        { outcome: 'success', actorUserId: user.id, actorCredential: 'jwt' },
      ]);
      expectError(await login(user), 401, 'MFA_REQUIRED');
    });

    it('should refuse a wrong confirmation code with 403 INVALID_MFA_CODE, audited', async () => {
      const user = await createUser(t);
      const { secret } = (await enrol(user.headers).expect(200)).body;

      expectError(await confirm(user.headers, await codeAt(secret, 2)), 403, 'INVALID_MFA_CODE');
      expect(await userAuditOf(t, user.id, 'auth.mfa_failed')).toEqual([
        { outcome: 'failure', actorUserId: user.id, actorCredential: 'jwt' },
      ]);
      expect((await login(user)).status).toBe(200);
    });

    it('should replace a pending secret when enrolling again; the old one no longer confirms', async () => {
      const user = await createUser(t);
      const first = (await enrol(user.headers).expect(200)).body.secret as string;
      const second = (await enrol(user.headers).expect(200)).body.secret as string;

      expect(second).not.toBe(first);
      expectError(await confirm(user.headers, await codeAt(first)), 403, 'INVALID_MFA_CODE');
      expect((await confirm(user.headers, await codeAt(second))).status).toBe(200);
    });

    it('should answer 409 MFA_ALREADY_ENABLED to enrolling or confirming once confirmed', async () => {
      const { user, secret } = await enrolled();

      expectError(await enrol(user.headers), 409, 'MFA_ALREADY_ENABLED');
      expectError(await confirm(user.headers, await codeAt(secret)), 409, 'MFA_ALREADY_ENABLED');
    });

    it('should answer 404 MFA_FACTOR_NOT_FOUND to a confirmation with nothing pending', async () => {
      const user = await createUser(t);

      expectError(await confirm(user.headers, '123456'), 404, 'MFA_FACTOR_NOT_FOUND');
    });

    it('should replay an enrolment and a confirmation under their Idempotency-Key without the secrets', async () => {
      const user = await createUser(t);
      const enrolKey = { ...user.headers, 'Idempotency-Key': `enrol-${user.id}` };
      const first = await enrol(enrolKey).expect(200);
      const replayedEnrolment = await enrol(enrolKey).expect(200);

      expect(replayedEnrolment.headers['idempotent-replayed']).toBe('true');
      expect(replayedEnrolment.body).toEqual({});
      // The replay made no new secret: the first one still confirms.
      const confirmKey = { ...user.headers, 'Idempotency-Key': `confirm-${user.id}` };
      const code = await codeAt(first.body.secret as string);
      const confirmed = await confirm(confirmKey, code).expect(200);
      const replayedConfirmation = await confirm(confirmKey, code).expect(200);

      expect(confirmed.body.recoveryCodes).toHaveLength(10);
      expect(replayedConfirmation.headers['idempotent-replayed']).toBe('true');
      expect(replayedConfirmation.headers['cache-control']).toBe('no-store');
      expect(replayedConfirmation.body).toEqual({});
      expectError(await login(user), 401, 'MFA_REQUIRED');
    });

    it('should tell the caller whether its factor is on: off until confirmed', async () => {
      const user = await createUser(t);
      const status = async () =>
        (await t.http.get('/v1/auth/mfa').set(user.headers).expect(200)).body;
      expect(await status()).toEqual({ totp: false });
      const { secret } = (await enrol(user.headers).expect(200)).body as { secret: string };
      expect(await status()).toEqual({ totp: false });
      await confirm(user.headers, await codeAt(secret)).expect(200);
      expect(await status()).toEqual({ totp: true });
    });

    it('should refuse a code that is not 6 digits', async () => {
      const user = await createUser(t);
      await enrol(user.headers).expect(200);

      expectValidationError(await confirm(user.headers, '12345'), ['code']);
      expectValidationError(await confirm(user.headers, 'abcdef'), ['code']);
    });
  });

  describe('login with a second factor', () => {
    it('should answer 401 MFA_REQUIRED with a single-use mfaToken, then the login shape at verify', async () => {
      const { user, secret } = await enrolled();
      const first = await login(user);

      expect(first.status).toBe(401);
      expect(first.body).toEqual(
        errorBody('MFA_REQUIRED', {
          mfaToken: expect.stringMatching(MFA_TOKEN),
          methods: ['totp', 'recovery_code'],
          expiresIn: 300,
        }),
      );
      const mfaToken = first.body.details.mfaToken as string;
      const res = await verify({ mfaToken, code: await codeAt(secret) });

      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        token: expect.any(String),
        user: { id: user.id, username: user.username, email: user.email },
        expiresIn: 3600,
        refreshToken: expect.stringMatching(/^rt_/),
        refreshExpiresIn: expect.any(Number),
      });
      await t.http.get(`/v1/users/${user.id}`).set(bearer(res.body.token)).expect(200);
      const refreshed = await t.http
        .post('/v1/auth/refresh')
        .send({ refreshToken: res.body.refreshToken });
      expect(refreshed.status).toBe(200);
      // Single use: the token is spent, even with the next valid code.
      nextStep();
      expectError(await verify({ mfaToken, code: await codeAt(secret) }), 401, 'INVALID_MFA_TOKEN');
    });

    it('should set the refresh token in the console’s cookie with refreshTokenIn: cookie, from its own Origin only', async () => {
      const { user, secret } = await enrolled();
      const mfaToken = await mfaTokenOf(t, user);
      const body = { mfaToken, code: await codeAt(secret), refreshTokenIn: 'cookie' };
      // Refused before the code is looked at: the mfaToken and the code stay good.
      expectError(
        await verify(body).set('Origin', 'https://elsewhere.example'),
        403,
        'ORIGIN_NOT_ALLOWED',
      );
      const res = await verify(body).set('Origin', BASE_URL);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        token: expect.any(String),
        user: { id: user.id, username: user.username, email: user.email },
        expiresIn: 3600,
        refreshExpiresIn: expect.any(Number),
      });
      const cookies = (res.headers['set-cookie'] as unknown as string[]).map(
        (line) => line.split(';')[0],
      );
      expect(cookies).toEqual([
        expect.stringMatching(/^petstore_refresh=rt_/),
        expect.stringMatching(/^petstore_refresh=rt_/),
      ]);
      await t.http
        .post('/v1/auth/refresh')
        .set('Origin', BASE_URL)
        .set('Cookie', cookies[0])
        .send({})
        .expect(200);
    });

    it('should refuse a replayed code in its window, and take the next step’s', async () => {
      const { user, secret } = await enrolled();
      const code = await codeAt(secret);

      expect((await verify({ mfaToken: await mfaTokenOf(t, user), code })).status).toBe(200);
      expectError(
        await verify({ mfaToken: await mfaTokenOf(t, user), code }),
        403,
        'INVALID_MFA_CODE',
      );
      now += 10_000;
      expectError(
        await verify({ mfaToken: await mfaTokenOf(t, user), code }),
        403,
        'INVALID_MFA_CODE',
      );
      nextStep();
      const next = await verify({
        mfaToken: await mfaTokenOf(t, user),
        code: await codeAt(secret),
      });
      expect(next.status).toBe(200);
    });

    it.each([
      [-1, 200],
      [1, 200],
      [-2, 403],
      [2, 403],
    ])('should answer a code of %i steps away with %i', async (steps, status) => {
      const { user, secret } = await enrolled();
      const res = await verify({
        mfaToken: await mfaTokenOf(t, user),
        code: await codeAt(secret, steps),
      });

      expect(res.status).toBe(status);
    });

    it('should take each recovery code once, in any case and without dashes', async () => {
      const { user, recoveryCodes } = await enrolled();
      const [first, second] = recoveryCodes;

      expect(
        (await verify({ mfaToken: await mfaTokenOf(t, user), recoveryCode: first })).status,
      ).toBe(200);
      expectError(
        await verify({ mfaToken: await mfaTokenOf(t, user), recoveryCode: first }),
        403,
        'INVALID_MFA_CODE',
      );
      const typed = second.replaceAll('-', '').toUpperCase();
      expect(
        (await verify({ mfaToken: await mfaTokenOf(t, user), recoveryCode: typed })).status,
      ).toBe(200);
    });

    it('should void the mfaToken after five wrong codes, counting them toward the lock-out, audited', async () => {
      const { user, secret } = await enrolled();
      const mfaToken = await mfaTokenOf(t, user);
      const wrong = await codeAt(secret, 5);

      for (const attemptsLeft of [4, 3, 2, 1, 0]) {
        const res = await verify({ mfaToken, code: wrong });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(errorBody('INVALID_MFA_CODE', { attemptsLeft }));
      }
      expectError(await verify({ mfaToken, code: await codeAt(secret) }), 401, 'INVALID_MFA_TOKEN');
      // LOGIN_LOCKOUT_FAILURES is 5 here: the right password is refused as a wrong one.
      expectError(await login(user), 401, 'INVALID_CREDENTIALS');
      const failures = await userAuditOf(t, user.id, 'auth.mfa_failed');
      expect(failures).toHaveLength(5);
      expect(failures[0]).toEqual({
        outcome: 'failure',
        actorUserId: user.id,
        actorCredential: 'none',
      });
    });

    it('should refuse an unknown, malformed or expired mfaToken with 401 INVALID_MFA_TOKEN', async () => {
      const { user, secret } = await enrolled();
      const code = await codeAt(secret);

      expectError(
        await verify({ mfaToken: `mfa_${'A'.repeat(43)}`, code }),
        401,
        'INVALID_MFA_TOKEN',
      );
      expectError(await verify({ mfaToken: 'nonsense', code }), 401, 'INVALID_MFA_TOKEN');
      const mfaToken = await mfaTokenOf(t, user);
      await t.dataSource.query(
        `UPDATE mfa_challenges SET expires_at = now() - interval '1 second' WHERE user_id = $1`,
        [user.id],
      );
      const expired = await verify({ mfaToken, code });
      expectError(expired, 401, 'INVALID_MFA_TOKEN');
      expect(expired.headers['www-authenticate']).toBe('Bearer realm="petstore"');
    });

    it('should ask for exactly one of code and recoveryCode', async () => {
      const { user, secret, recoveryCodes } = await enrolled();
      const mfaToken = await mfaTokenOf(t, user);

      expectValidationError(await verify({ mfaToken }), ['code']);
      expectValidationError(
        await verify({ mfaToken, code: await codeAt(secret), recoveryCode: recoveryCodes[0] }),
        ['recoveryCode'],
      );
      expectValidationError(await verify({ code: await codeAt(secret) }), ['mfaToken']);
    });

    it('should keep the factor through a password reset', async () => {
      const { user, secret } = await enrolled();
      await t.http.post('/v1/auth/forgot-password').send({ email: user.email }).expect(202);
      await waitFor(() => Promise.resolve(smtp.mailsTo(user.email).length > 0), 10_000);
      const token = new RegExp(`${BASE_URL}/console/reset-password\\?token=([A-Za-z0-9_-]+)`).exec(
        smtp.mailsTo(user.email)[0].parsed.text ?? '',
      )?.[1];
      await t.http
        .post('/v1/auth/reset-password')
        .send({ token, password: 'a reset password' })
        .expect(200);
      const res = await login({ username: user.username, password: 'a reset password' });

      expectError(res, 401, 'MFA_REQUIRED');
      const done = await verify({
        mfaToken: res.body.details.mfaToken,
        code: await codeAt(secret),
      });
      expect(done.status).toBe(200);
    });
  });

  describe('removal', () => {
    async function freshToken({ user, secret }: Enrolled): Promise<Headers> {
      const res = await verify({ mfaToken: await mfaTokenOf(t, user), code: await codeAt(secret) });
      nextStep();
      return bearer(res.body.token as string);
    }

    it('should remove one’s own factor with a code only, audited', async () => {
      const account = await enrolled();
      const headers = await freshToken(account);

      expectValidationError(await removeOwn(headers, {}), ['code']);
      expectError(
        await removeOwn(headers, { code: await codeAt(account.secret, 3) }),
        403,
        'INVALID_MFA_CODE',
      );
      expect((await removeOwn(headers, { code: await codeAt(account.secret) })).body).toEqual({});
      expect((await login(account.user)).status).toBe(200);
      expect(await userAuditOf(t, account.user.id, 'auth.mfa_removed')).toEqual([
        { outcome: 'success', actorUserId: account.user.id, actorCredential: 'jwt' },
      ]);
      const codes = await t.dataSource.query(`SELECT 1 FROM recovery_codes WHERE user_id = $1`, [
        account.user.id,
      ]);
      expect(codes).toEqual([]);
      expectError(
        await removeOwn(headers, { code: await codeAt(account.secret) }),
        404,
        'MFA_FACTOR_NOT_FOUND',
      );
    });

    it('should remove one’s own factor with a recovery code', async () => {
      const account = await enrolled();
      const headers = await freshToken(account);

      const res = await removeOwn(headers, { recoveryCode: account.recoveryCodes[9] });
      expect(res.status).toBe(200);
      expect((await login(account.user)).status).toBe(200);
    });

    it('should let an admin remove another account’s factor, audited as the admin', async () => {
      const account = await enrolled();
      const res = await t.http.delete(`/v1/users/${account.user.id}/mfa`).set(t.admin);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect((await login(account.user)).status).toBe(200);
      expect(await userAuditOf(t, account.user.id, 'auth.mfa_removed')).toEqual([
        { outcome: 'success', actorUserId: t.adminUser.id, actorCredential: 'jwt' },
      ]);
      expectError(
        await t.http.delete(`/v1/users/${account.user.id}/mfa`).set(t.admin),
        404,
        'MFA_FACTOR_NOT_FOUND',
      );
      expectError(await t.http.delete('/v1/users/999999/mfa').set(t.admin), 404, 'USER_NOT_FOUND');
    });

    it('should refuse removal by anyone but an admin, and an admin’s own removal without a code', async () => {
      const account = await enrolled();
      const admin = await enrolled({ role: 'admin' });
      const adminHeaders = await freshToken(admin);

      expectError(
        await t.http.delete(`/v1/users/${account.user.id}/mfa`).set(t.user),
        403,
        'INSUFFICIENT_PERMISSIONS',
      );
      expectError(
        await t.http.delete(`/v1/users/${admin.user.id}/mfa`).set(adminHeaders),
        403,
        'INSUFFICIENT_PERMISSIONS',
      );
      expectError(await login(admin.user), 401, 'MFA_REQUIRED');
    });
  });
});

describe('Second factor required by role (e2e)', () => {
  let t: TestApp;
  let now: number;

  const login = (user: { username: string; password: string }) =>
    t.http.post('/v1/auth/login').send({ username: user.username, password: user.password });
  /** An account of a role that must have a factor: enrols with its enrolment token. */
  async function enrolWith(enrolmentToken: string): Promise<string> {
    const enrolOnly = bearer(enrolmentToken);
    const { secret } = (await t.http.post('/v1/auth/mfa/totp').set(enrolOnly).expect(200)).body;
    await t.http
      .post('/v1/auth/mfa/totp/confirm')
      .set(enrolOnly)
      .send({ code: await generate({ secret, epoch: now / 1000 }) })
      .expect(200);
    now += 3 * STEP * 1000;
    return secret as string;
  }

  beforeAll(async () => {
    now = START;
    t = await createTestApp({ MFA_REQUIRED_ROLES: 'admin' }, { signIn: false });
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    // The bootstrap admin enrols, then signs in with a code, as on a first deployment.
    const first = await login(t.adminUser);
    expectError(first, 403, 'MFA_ENROLMENT_REQUIRED');
    const secret = await enrolWith(first.body.details.enrolmentToken as string);
    const mfaToken = (await login(t.adminUser)).body.details.mfaToken as string;
    const res = await t.http
      .post('/v1/auth/mfa/verify')
      .send({ mfaToken, code: await generate({ secret, epoch: now / 1000 }) })
      .expect(200);
    t.admin = bearer(res.body.token as string);
    t.adminUser.id = res.body.user.id as number;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Every operation of the document with a credential, its path parameters filled in. */
  function authenticatedOperations(): { method: string; path: string; operationId: string }[] {
    const document = t.app.get(PublishedOpenApi).json as unknown as {
      paths: Record<string, Record<string, { security?: unknown[]; operationId: string }>>;
    };
    return Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.security?.length)
        .map(([method, operation]) => ({
          method,
          path: path.replace(/\{[^}]+\}/g, '1'),
          operationId: operation.operationId,
        })),
    );
  }

  it('should answer an admin without a factor 403 MFA_ENROLMENT_REQUIRED with a token that only enrols', async () => {
    const admin = { username: `mfa_admin_${Date.now()}`, password: 'an admin password' };
    const created = await t.http
      .post('/v1/users')
      .set(t.admin)
      .send({ ...admin, email: `${admin.username}@example.com`, role: 'admin' })
      .expect(201);
    const refused = await login(admin);

    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(
      errorBody('MFA_ENROLMENT_REQUIRED', { enrolmentToken: expect.any(String), expiresIn: 600 }),
    );
    const enrolmentToken = refused.body.details.enrolmentToken as string;
    await enrolWith(enrolmentToken);
    // Confirmed, the enrolment token still opens nothing else; the login now asks for a code.
    expectError(
      await t.http.get(`/v1/users/${created.body.id}`).set(bearer(enrolmentToken)),
      403,
      'MFA_ENROLMENT_REQUIRED',
    );
    expectError(await login(admin), 401, 'MFA_REQUIRED');
    // Other roles sign in with their password.
    const user = await createUser(t);
    await t.http.get(`/v1/users/${user.id}`).set(user.headers).expect(200);
  });

  it('should refuse every other route to the enrolment token and to a password-only session', async () => {
    // A session from before the role required a factor: a user's login, then made admin.
    const promoted = await createUser(t);
    await t.http.put(`/v1/users/${promoted.id}`).set(t.admin).send({ role: 'admin' }).expect(200);
    const passwordOnly = promoted.headers;
    const refused = await login(promoted);
    const enrolOnly = bearer(refused.body.details.enrolmentToken as string);
    const enrolment = new Set([
      'getMfaStatus',
      'enrolTotp',
      'confirmTotp',
      'startPasskeyRegistration',
      'addPasskey',
      'listPasskeys',
    ]);
    const operations = authenticatedOperations().filter(
      ({ operationId }) => !enrolment.has(operationId),
    );

    expect(operations.length).toBeGreaterThan(40);
    for (const headers of [enrolOnly, passwordOnly]) {
      for (const { method, path, operationId } of operations) {
        const res = await t.http[method as 'get'](`${path}`).set(headers);
        expect({ operationId, status: res.status, code: res.body?.code }).toEqual({
          operationId,
          status: 403,
          code: 'MFA_ENROLMENT_REQUIRED',
        });
      }
    }
    // Both read their status, which the console's Security page shows before enrolling.
    for (const headers of [enrolOnly, passwordOnly]) {
      expect((await t.http.get('/v1/auth/mfa').set(headers).expect(200)).body).toEqual({
        totp: false,
      });
    }
    // The admin who signed in with a code passes.
    await t.http.get(`/v1/users/${promoted.id}`).set(t.admin).expect(200);
  });
});
