import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Clock } from '../../../src/common/clock.js';
import { bearer, createUser, type CreatedUser, type Headers } from '../../support/auth.js';
import { errorBody, expectError, expectValidationError } from '../../support/errors.js';
import { mfaTokenOf, userAuditOf } from '../../support/mfa.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { SoftwareAuthenticator } from '../../support/webauthn-authenticator.js';

/*
 * Contract section 9, "Staff sign-in": passkeys (WebAuthn) registered, listed, renamed and
 * removed by their owner; a second factor at login, and a sign-in without a password. A
 * software authenticator (test/support) makes the credentials; the service's Clock is moved
 * by the test to expire challenges.
 */
const BASE_URL = 'https://shop.example.com';
const START = Date.UTC(2026, 11, 7, 12, 0, 0);
const MFA_TOKEN = /^mfa_[A-Za-z0-9_-]{43}$/;

interface Registered {
  user: CreatedUser;
  authenticator: SoftwareAuthenticator;
  passkeyId: number;
  credentialId: string;
}

describe('Passkeys (e2e)', () => {
  let t: TestApp;
  let now: number;

  beforeAll(async () => {
    t = await createTestApp({
      LOGIN_LOCKOUT_FAILURES: '5',
      LOGIN_LOCKOUT_SECONDS: '300',
      PUBLIC_BASE_URL: BASE_URL,
    });
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(() => {
    now = START;
  });

  const registrationOptions = async (headers: Headers) =>
    (await t.http.post('/v1/auth/passkeys/registration').set(headers).expect(200)).body.options;
  const add = (headers: Headers, body: Record<string, unknown>) =>
    t.http.post('/v1/auth/passkeys').set(headers).send(body);
  const list = async (headers: Headers) =>
    (await t.http.get('/v1/auth/passkeys').set(headers).expect(200)).body.passkeys;
  const login = (user: { username: string; password: string }) =>
    t.http.post('/v1/auth/login').send({ username: user.username, password: user.password });
  const loginOptions = async () =>
    (await t.http.post('/v1/auth/passkeys/login-options').expect(200)).body.options;
  const passkeyLogin = (credential: unknown) =>
    t.http.post('/v1/auth/passkeys/login').send({ credential });
  const proofOptions = async (headers: Headers) =>
    (await t.http.post('/v1/auth/passkeys/proof-options').set(headers).expect(200)).body.options;
  const remove = (headers: Headers, id: number, body: Record<string, unknown>) =>
    t.http.delete(`/v1/auth/passkeys/${id}`).set(headers).send(body);

  async function registered(
    user?: CreatedUser,
    authenticator = new SoftwareAuthenticator(BASE_URL),
  ): Promise<Registered> {
    const owner = user ?? (await createUser(t));
    const credential = authenticator.create(await registrationOptions(owner.headers));
    const res = await add(owner.headers, { name: 'Laptop', credential }).expect(201);
    return { user: owner, authenticator, passkeyId: res.body.id, credentialId: credential.id };
  }

  describe('registration', () => {
    it('should answer creation options for a discoverable credential of PUBLIC_BASE_URL', async () => {
      const user = await createUser(t);
      const options = await registrationOptions(user.headers);

      expect(options).toMatchObject({
        rp: { id: 'shop.example.com', name: 'Petstore' },
        user: { name: user.username },
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        attestation: 'none',
        excludeCredentials: [],
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true },
      });
      const params = options.pubKeyCredParams as { alg: number }[];
      expect(params.map((p) => p.alg)).toEqual([-8, -7, -257]);
    });

    it('should register a passkey, list it, exclude it from the next options, audited', async () => {
      const { user, passkeyId, credentialId } = await registered();

      expect(await list(user.headers)).toEqual([
        {
          id: passkeyId,
          name: 'Laptop',
          createdAt: expect.any(String),
          lastUsedAt: null,
          backedUp: false,
          deviceType: 'singleDevice',
          transports: ['internal'],
        },
      ]);
      const next = await registrationOptions(user.headers);
      expect(next.excludeCredentials).toEqual([
        { id: credentialId, type: 'public-key', transports: ['internal'] },
      ]);
      expect(await userAuditOf(t, user.id, 'auth.passkey_added')).toEqual([
        { outcome: 'success', actorUserId: user.id, actorCredential: 'jwt' },
      ]);
    });

    it('should keep the backup flags and name a passkey sent without one', async () => {
      const user = await createUser(t);
      const synced = new SoftwareAuthenticator(BASE_URL, true);
      const credential = synced.create(await registrationOptions(user.headers));
      const res = await add(user.headers, { credential });

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        name: 'Passkey',
        backedUp: true,
        deviceType: 'multiDevice',
      });
    });

    it('should refuse a credential of another origin or relying party, or a spent or expired challenge', async () => {
      const user = await createUser(t);
      const authenticator = new SoftwareAuthenticator(BASE_URL);
      const refusedWith = async (make: (options: never) => unknown, moveClock = 0) => {
        const options = await registrationOptions(user.headers);
        now += moveClock;
        const res = await add(user.headers, { credential: make(options as never) });
        now = START;
        expectError(res, 400, 'PASSKEY_REGISTRATION_FAILED');
        return res;
      };

      await refusedWith((o) => authenticator.create(o, { origin: 'https://evil.example.com' }));
      await refusedWith((o) => authenticator.create(o, { rpId: 'evil.example.com' }));
      await refusedWith((o) => authenticator.create(o), 301_000);
      const options = await registrationOptions(user.headers);
      await add(user.headers, { credential: authenticator.create(options) }).expect(201);
      const reused = await add(user.headers, { credential: authenticator.create(options) });
      expectError(reused, 400, 'PASSKEY_REGISTRATION_FAILED');
      expect(reused.body.details).toEqual({ reason: 'challenge unknown, used or expired' });
      expect(await list(user.headers)).toHaveLength(1);
    });

    it('should refuse a credential registered already with 409 PASSKEY_ALREADY_REGISTERED', async () => {
      const { user, authenticator, credentialId } = await registered();
      const other = await createUser(t);
      const again = authenticator.registrationOf(
        authenticator.credentials.get(credentialId)!,
        await registrationOptions(other.headers),
      );

      expectError(
        await add(other.headers, { credential: again }),
        409,
        'PASSKEY_ALREADY_REGISTERED',
      );
      expect(await list(other.headers)).toEqual([]);
      expect(await list(user.headers)).toHaveLength(1);
    });

    it('should validate the body', async () => {
      const user = await createUser(t);
      expectValidationError(await add(user.headers, {}), ['credential']);
      expectValidationError(await add(user.headers, { credential: 'x', name: ' ' }), [
        'credential',
        'name',
      ]);
    });
  });

  describe('rename and removal', () => {
    it('should rename one’s own passkey; another’s is 404 PASSKEY_NOT_FOUND', async () => {
      const { user, passkeyId } = await registered();
      const other = await createUser(t);

      const res = await t.http
        .patch(`/v1/auth/passkeys/${passkeyId}`)
        .set(user.headers)
        .send({ name: 'Phone' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: passkeyId, name: 'Phone' });
      expectError(
        await t.http.patch(`/v1/auth/passkeys/${passkeyId}`).set(other.headers).send({ name: 'x' }),
        404,
        'PASSKEY_NOT_FOUND',
      );
      expect(await list(other.headers)).toEqual([]);
      expect((await list(user.headers))[0].name).toBe('Phone');
    });

    it('should remove one’s own passkey only with a proof, audited', async () => {
      const { user, authenticator, passkeyId } = await registered();

      expectValidationError(await remove(user.headers, passkeyId, {}), ['code']);
      // An assertion for options of another ceremony proves nothing.
      const stray = authenticator.get(await loginOptions());
      expectError(
        await remove(user.headers, passkeyId, { passkey: stray }),
        403,
        'INVALID_MFA_CODE',
      );
      expect(await userAuditOf(t, user.id, 'auth.mfa_failed')).toEqual([
        { outcome: 'failure', actorUserId: user.id, actorCredential: 'jwt' },
      ]);
      const proof = authenticator.get(await proofOptions(user.headers));
      const res = await remove(user.headers, passkeyId, { passkey: proof });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect(await list(user.headers)).toEqual([]);
      expect(await userAuditOf(t, user.id, 'auth.passkey_removed')).toEqual([
        { outcome: 'success', actorUserId: user.id, actorCredential: 'jwt' },
      ]);
      expect((await login(user)).status).toBe(200);
      expectError(
        await t.http.post('/v1/auth/passkeys/proof-options').set(user.headers),
        404,
        'PASSKEY_NOT_FOUND',
      );
    });

    it('should answer 404 for another’s passkey, whatever the proof', async () => {
      const { passkeyId } = await registered();
      const other = await registered();
      const proof = other.authenticator.get(await proofOptions(other.user.headers));

      expectError(
        await remove(other.user.headers, passkeyId, { passkey: proof }),
        404,
        'PASSKEY_NOT_FOUND',
      );
    });

    it('should let an admin remove every passkey of an account with DELETE /users/{id}/mfa', async () => {
      const { user } = await registered();
      await registered(user);

      const res = await t.http.delete(`/v1/users/${user.id}/mfa`).set(t.admin);
      expect(res.status).toBe(200);
      expect(await list(user.headers)).toEqual([]);
      expect((await login(user)).status).toBe(200);
      expect(await userAuditOf(t, user.id, 'auth.mfa_removed')).toEqual([
        { outcome: 'success', actorUserId: t.adminUser.id, actorCredential: 'jwt' },
      ]);
    });
  });

  describe('second factor', () => {
    it('should ask for the second factor with the account’s methods, then take a passkey', async () => {
      const { user, authenticator, passkeyId, credentialId } = await registered();
      const first = await login(user);

      expect(first.body).toEqual(
        errorBody('MFA_REQUIRED', {
          mfaToken: expect.stringMatching(MFA_TOKEN),
          methods: ['passkey'],
          expiresIn: 300,
        }),
      );
      const mfaToken = first.body.details.mfaToken as string;
      const optionsRes = await t.http.post('/v1/auth/mfa/passkey-options').send({ mfaToken });
      expect(optionsRes.status).toBe(200);
      expect(optionsRes.body.options).toMatchObject({
        rpId: 'shop.example.com',
        allowCredentials: [{ id: credentialId, type: 'public-key' }],
      });
      const passkey = authenticator.get(optionsRes.body.options);
      const res = await t.http.post('/v1/auth/mfa/verify').send({ mfaToken, passkey });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        token: expect.any(String),
        user: { id: user.id, username: user.username, email: user.email },
        expiresIn: 3600,
        refreshToken: expect.stringMatching(/^rt_/),
        refreshExpiresIn: expect.any(Number),
      });
      const [stored] = (await list(user.headers)) as { id: number; lastUsedAt: string }[];
      expect(stored).toMatchObject({ id: passkeyId, lastUsedAt: expect.any(String) });
      const [row] = await t.dataSource.query<{ counter: string }[]>(
        `SELECT counter FROM passkeys WHERE id = $1`,
        [passkeyId],
      );
      expect(Number(row.counter)).toBe(1);
    });

    it('should count a refused assertion as a wrong code, audited', async () => {
      const { user, authenticator } = await registered();
      const mfaToken = await mfaTokenOf(t, user);
      const options = (await t.http.post('/v1/auth/mfa/passkey-options').send({ mfaToken })).body
        .options;
      const wrongOrigin = authenticator.get(options, { origin: 'https://evil.example.com' });

      const res = await t.http.post('/v1/auth/mfa/verify').send({ mfaToken, passkey: wrongOrigin });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(errorBody('INVALID_MFA_CODE', { attemptsLeft: 4 }));
      // Its challenge went with the refusal: the same options do not serve again.
      const retry = authenticator.get(options);
      expectError(
        await t.http.post('/v1/auth/mfa/verify').send({ mfaToken, passkey: retry }),
        403,
        'INVALID_MFA_CODE',
      );
      expect(await userAuditOf(t, user.id, 'auth.mfa_failed')).toEqual([
        { outcome: 'failure', actorUserId: user.id, actorCredential: 'none' },
        { outcome: 'failure', actorUserId: user.id, actorCredential: 'none' },
      ]);
    });

    it('should refuse options for an unusable mfaToken with 401 INVALID_MFA_TOKEN', async () => {
      expectError(
        await t.http.post('/v1/auth/mfa/passkey-options').send({ mfaToken: 'mfa_nonsense' }),
        401,
        'INVALID_MFA_TOKEN',
      );
      expectValidationError(await t.http.post('/v1/auth/mfa/passkey-options').send({}), [
        'mfaToken',
      ]);
    });
  });

  describe('sign-in without a password', () => {
    it('should sign in with a discoverable passkey, verified, for an ordinary session', async () => {
      const { user, authenticator } = await registered();
      const options = await loginOptions();

      expect(options).toMatchObject({ rpId: 'shop.example.com', userVerification: 'required' });
      expect(options.allowCredentials ?? []).toEqual([]);
      const res = await passkeyLogin(authenticator.get(options));

      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        token: expect.any(String),
        user: { id: user.id, username: user.username, email: user.email },
        expiresIn: 3600,
        refreshToken: expect.stringMatching(/^rt_/),
        refreshExpiresIn: expect.any(Number),
      });
      await t.http
        .get(`/v1/users/${user.id}`)
        .set(bearer(res.body.token as string))
        .expect(200);
      await t.http
        .post('/v1/auth/refresh')
        .send({ refreshToken: res.body.refreshToken })
        .expect(200);
      const logins = await t.dataSource.query(
        `SELECT 1 FROM audit_events WHERE action = 'auth.login' AND actor_user_id = $1`,
        [user.id],
      );
      // createUser's login, then the passkey's.
      expect(logins).toHaveLength(2);
    });

    it('should answer 401 INVALID_PASSKEY for every refusal', async () => {
      const { user, authenticator } = await registered();
      const stranger = new SoftwareAuthenticator(BASE_URL);
      stranger.create({ challenge: 'x', rp: { id: 'shop.example.com' }, user: { id: 'eA' } });
      const refusals: (() => Promise<unknown>)[] = [
        async () => stranger.get(await loginOptions()),
        async () => authenticator.get(await loginOptions(), { verified: false }),
        async () => authenticator.get(await loginOptions(), { rpId: 'evil.example.com' }),
        async () => authenticator.get(await loginOptions(), { origin: 'https://evil.example.com' }),
        async () => authenticator.get({ ...(await loginOptions()), challenge: 'bm90IGlzc3VlZA' }),
        async () => {
          const options = await loginOptions();
          now += 301_000;
          return authenticator.get(options);
        },
      ];
      for (const make of refusals) {
        const res = await passkeyLogin(await make());
        now = START;
        expectError(res, 401, 'INVALID_PASSKEY');
        expect(res.headers['www-authenticate']).toBe('Bearer realm="petstore"');
      }
      // The known credential's refusals count against its account (LOGIN_LOCKOUT_FAILURES 5).
      expect(await userAuditOf(t, user.id, 'auth.mfa_failed')).toHaveLength(3);
    });

    it('should refuse a challenge used once already', async () => {
      const { authenticator } = await registered();
      const options = await loginOptions();

      await passkeyLogin(authenticator.get(options)).expect(200);
      expectError(await passkeyLogin(authenticator.get(options)), 401, 'INVALID_PASSKEY');
    });

    it('should refuse a cloned credential whose counter does not rise, audited', async () => {
      const { user, authenticator, credentialId, passkeyId } = await registered();
      const clone = authenticator.clone(credentialId);

      await passkeyLogin(authenticator.get(await loginOptions())).expect(200);
      const res = await passkeyLogin(clone.get(await loginOptions()));

      expectError(res, 401, 'INVALID_PASSKEY');
      expect(await userAuditOf(t, user.id, 'auth.mfa_failed')).toEqual([
        { outcome: 'failure', actorUserId: user.id, actorCredential: 'none' },
      ]);
      const [row] = await t.dataSource.query<{ counter: string }[]>(
        `SELECT counter FROM passkeys WHERE id = $1`,
        [passkeyId],
      );
      expect(Number(row.counter)).toBe(1);
      // The original keeps working.
      await passkeyLogin(authenticator.get(await loginOptions())).expect(200);
    });

    it('should refuse a disabled or locked-out account', async () => {
      const { user, authenticator } = await registered();
      await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ userStatus: 1 }).expect(200);
      expectError(
        await passkeyLogin(authenticator.get(await loginOptions())),
        401,
        'INVALID_PASSKEY',
      );

      const locked = await registered();
      for (let i = 0; i < 5; i += 1) {
        await t.http
          .post('/v1/auth/login')
          .send({ username: locked.user.username, password: 'wrong password' })
          .expect(401);
      }
      expectError(
        await passkeyLogin(locked.authenticator.get(await loginOptions())),
        401,
        'INVALID_PASSKEY',
      );
    });
  });
});

describe('Passkeys and MFA_REQUIRED_ROLES (e2e)', () => {
  let required: TestApp;

  beforeAll(async () => {
    required = await createTestApp(
      { MFA_REQUIRED_ROLES: 'admin', PUBLIC_BASE_URL: BASE_URL },
      { signIn: false },
    );
  });
  afterAll(async () => {
    await required?.close();
  });

  it('should give a role that requires a factor its factor with a passkey alone', async () => {
    const refused = await required.http
      .post('/v1/auth/login')
      .send({ username: required.adminUser.username, password: required.adminUser.password });
    expectError(refused, 403, 'MFA_ENROLMENT_REQUIRED');
    const enrolOnly = bearer(refused.body.details.enrolmentToken as string);
    const authenticator = new SoftwareAuthenticator(BASE_URL);
    const options = (
      await required.http.post('/v1/auth/passkeys/registration').set(enrolOnly).expect(200)
    ).body.options;
    await required.http
      .post('/v1/auth/passkeys')
      .set(enrolOnly)
      .send({ credential: authenticator.create(options) })
      .expect(201);

    const loginOptions = (await required.http.post('/v1/auth/passkeys/login-options').expect(200))
      .body.options;
    const signedIn = await required.http
      .post('/v1/auth/passkeys/login')
      .send({ credential: authenticator.get(loginOptions) })
      .expect(200);
    await required.http
      .get('/v1/users')
      .set(bearer(signedIn.body.token as string))
      .expect(200);
    // The password now asks for the passkey.
    const withPassword = await required.http
      .post('/v1/auth/login')
      .send({ username: required.adminUser.username, password: required.adminUser.password });
    expect(withPassword.body.details.methods).toEqual(['passkey']);
  });
});
