import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { generate } from 'otplib';
import type { Response } from 'supertest';
import { bearer } from '../../support/auth.js';
import { errorBody, expectError } from '../../support/errors.js';
import {
  startOidcProvider,
  type ProviderAccount,
  type TestOidcProvider,
} from '../../support/oidc-provider.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const OWN_ORIGIN = 'https://pets.example.test';
const CALLBACK = `${OWN_ORIGIN}/v1/auth/sso/callback`;
const STATE_COOKIE = 'petstore_sso';
const REFRESH_COOKIE = 'petstore_refresh';
const ALLOWED = 'example.com,people.example';

/** The value of the cookie `name` that the answer set (an empty string clears it). */
function cookieSet(res: Response, name: string): string | undefined {
  const lines = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  const line = lines.find((candidate) => candidate.startsWith(`${name}=`));
  return line?.slice(name.length + 1).split(';')[0];
}

describe('Single sign-on with an OpenID Connect provider (e2e)', () => {
  let provider: TestOidcProvider;
  let other: TestOidcProvider;
  let t: TestApp;
  let closed: TestApp;
  let people = 0;

  beforeAll(async () => {
    provider = await startOidcProvider(CALLBACK);
    other = await startOidcProvider(CALLBACK);
    const oidc = {
      PUBLIC_BASE_URL: OWN_ORIGIN,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_DISPLAY_NAME: 'Test ID',
      OIDC_ALLOWED_DOMAINS: ALLOWED,
    };
    t = await createTestApp({ ...oidc, REGISTRATION: 'open' });
    // Apart, with its own database (the embedded one opens in one app at a time), and the
    // same JWT secret: the process keeps one.
    closed = await createTestApp({ ...oidc, REGISTRATION: 'closed', JWT_SECRET: t.jwt.secret });
  });
  afterAll(async () => {
    await closed?.close();
    await t?.close();
    await provider?.stop();
    await other?.stop();
  });
  beforeEach(async () => {
    await t.dataSource.query('TRUNCATE audit_events');
  });

  const newPerson = (): ProviderAccount => {
    people += 1;
    return {
      email: `person.${people}@people.example`,
      email_verified: true,
      given_name: 'Pat',
      family_name: `Person ${people}`,
      preferred_username: `pat.${people}`,
    };
  };

  /** GET /v1/auth/sso: the provider's authorization URL and the state cookie. */
  async function start(app = t): Promise<{ authorizationUrl: URL; stateCookie: string }> {
    const res = await app.http.get('/v1/auth/sso').expect(302);
    expect(res.headers['cache-control']).toBe('no-store');
    const stateCookie = cookieSet(res, STATE_COOKIE);
    expect(stateCookie).toEqual(expect.any(String));
    return { authorizationUrl: new URL(res.headers.location), stateCookie: stateCookie! };
  }

  const callback = (url: URL, stateCookie: string | undefined, app = t) => {
    const req = app.http.get(`${url.pathname}${url.search}`);
    return stateCookie === undefined ? req : req.set('Cookie', `${STATE_COOKIE}=${stateCookie}`);
  };

  /** A whole sign-in as `account`, answered by the service's callback. */
  async function signIn(account: ProviderAccount, app = t): Promise<Response> {
    const { authorizationUrl, stateCookie } = await start(app);
    const back = await provider.signIn(authorizationUrl.href, account);
    return callback(back, stateCookie, app);
  }

  /** The session the callback's refresh cookie holds, as the console gets it. */
  async function refreshed(res: Response, app = t) {
    const cookie = cookieSet(res, REFRESH_COOKIE);
    expect(cookie).toMatch(/^rt_/);
    const answer = await app.http
      .post('/v1/auth/refresh')
      .set('Origin', OWN_ORIGIN)
      .set('Cookie', `${REFRESH_COOKIE}=${cookie}`)
      .send({})
      .expect(200);
    return answer.body as { token: string; user: { id: number; username: string; email: string } };
  }

  const userOf = async (id: number) => {
    const res = await t.http.get(`/v1/users/${id}`).set(t.admin);
    if (res.status !== 200) throw new Error(JSON.stringify(res.body) + JSON.stringify(t.admin));
    return res.body;
  };

  it('should tell the console the provider’s name', async () => {
    const res = await t.http.get('/v1/auth/sso/config').expect(200);
    expect(res.body).toEqual({ enabled: true, displayName: 'Test ID' });
  });

  it('should send the browser to the provider with state, nonce and a PKCE challenge', async () => {
    const { authorizationUrl } = await start();
    expect(authorizationUrl.origin).toBe(provider.issuer);
    expect(Object.fromEntries(authorizationUrl.searchParams)).toEqual({
      client_id: provider.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid email profile',
      state: expect.any(String),
      nonce: expect.any(String),
      code_challenge: expect.any(String),
      code_challenge_method: 'S256',
    });
  });

  it('should make a customer of a new person, sign it in with a session that refreshes, and audit it', async () => {
    const person = newPerson();
    const res = await signIn(person);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/console/#sso');
    expect(cookieSet(res, STATE_COOKIE)).toBe('');
    const session = await refreshed(res);
    expect(session.user).toEqual({
      id: expect.any(Number),
      username: person.preferred_username,
      email: person.email,
    });
    expect(await userOf(session.user.id)).toMatchObject({
      role: 'customer',
      userStatus: 0,
      firstName: 'Pat',
    });

    const audit = await t.http.get('/v1/audit-events?limit=100').set(t.admin).expect(200);
    const actions = (audit.body.auditEvents as { action: string; actor: { userId: number } }[]).map(
      (entry) => [entry.action, entry.actor.userId],
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        ['auth.registered', session.user.id],
        ['auth.sso_login', session.user.id],
      ]),
    );

    // A second sign-in of the same person reaches the same account.
    const again = await refreshed(await signIn(person));
    expect(again.user.id).toBe(session.user.id);
  });

  it('should link a verified address to the existing account, whatever its case', async () => {
    const res = await signIn({ email: t.plainUser.email.toUpperCase(), email_verified: true });
    expect(res.status).toBe(302);
    expect((await refreshed(res)).user.id).toBe(t.plainUser.id);
  });

  it('should refuse an address the provider does not vouch for: 403 SSO_EMAIL_NOT_VERIFIED', async () => {
    const unverified = await signIn({ email: t.plainUser.email, email_verified: false });
    expectError(unverified, 403, 'SSO_EMAIL_NOT_VERIFIED');
    expect(cookieSet(unverified, REFRESH_COOKIE)).toBeUndefined();
    expectError(await signIn({}), 403, 'SSO_EMAIL_NOT_VERIFIED');
  });

  it('should refuse a domain outside OIDC_ALLOWED_DOMAINS: 403 SSO_DOMAIN_NOT_ALLOWED', async () => {
    const res = await signIn({ email: 'someone@elsewhere.example', email_verified: true });
    expectError(res, 403, 'SSO_DOMAIN_NOT_ALLOWED');
  });

  it('should make no account with REGISTRATION=closed (403 REGISTRATION_CLOSED), and still sign in an existing one', async () => {
    const person = newPerson();
    expectError(await signIn(person, closed), 403, 'REGISTRATION_CLOSED');
    const [{ count: made }] = await closed.dataSource.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM users WHERE lower(email) = lower($1)',
      [person.email],
    );
    expect(made).toBe(0);
    const existing = await signIn({ email: closed.plainUser.email, email_verified: true }, closed);
    expect(existing.status).toBe(302);
  });

  it('should refuse a callback whose state was altered: 401 SSO_FAILED', async () => {
    const { authorizationUrl, stateCookie } = await start();
    const back = await provider.signIn(authorizationUrl.href, newPerson());
    back.searchParams.set('state', `${back.searchParams.get('state')}x`);
    const res = await callback(back, stateCookie);
    expect(res.body).toEqual(errorBody('SSO_FAILED', { reason: expect.stringMatching(/state/) }));
    expect(res.status).toBe(401);
  });

  it('should refuse a callback without the state cookie, or with an altered one: 401 SSO_FAILED', async () => {
    const { authorizationUrl, stateCookie } = await start();
    const back = await provider.signIn(authorizationUrl.href, newPerson());
    expectError(await callback(back, undefined), 401, 'SSO_FAILED');
    const altered = `${stateCookie.slice(0, -2)}${stateCookie.endsWith('A') ? 'B' : 'A'}A`;
    expectError(await callback(back, altered), 401, 'SSO_FAILED');
  });

  it('should refuse an id_token whose nonce is not the one sent: 401 SSO_FAILED', async () => {
    const { authorizationUrl, stateCookie } = await start();
    authorizationUrl.searchParams.set('nonce', 'a nonce the service never sent');
    const back = await provider.signIn(authorizationUrl.href, newPerson());
    const res = await callback(back, stateCookie);
    expect(res.body).toEqual(errorBody('SSO_FAILED', { reason: expect.stringMatching(/nonce/) }));
  });

  it('should refuse an answer of another provider: 401 SSO_FAILED', async () => {
    const { authorizationUrl, stateCookie } = await start();
    const elsewhere = new URL(
      `${authorizationUrl.pathname}${authorizationUrl.search}`,
      other.issuer,
    );
    const back = await other.signIn(elsewhere.href, newPerson());
    expect(back.searchParams.get('iss')).toBe(other.issuer);
    expectError(await callback(back, stateCookie), 401, 'SSO_FAILED');
    // Without its issuer parameter, its code is refused by the configured provider.
    back.searchParams.delete('iss');
    expectError(await callback(back, stateCookie), 401, 'SSO_FAILED');
  });

  it('should refuse a replayed callback: 401 SSO_FAILED, and no second session', async () => {
    const { authorizationUrl, stateCookie } = await start();
    const back = await provider.signIn(authorizationUrl.href, newPerson());
    expect((await callback(back, stateCookie)).status).toBe(302);
    const replay = await callback(back, stateCookie);
    expectError(replay, 401, 'SSO_FAILED');
    expect(cookieSet(replay, REFRESH_COOKIE)).toBeUndefined();
  });

  describe('with MFA_REQUIRED_ROLES=admin', () => {
    let held: TestApp;
    beforeAll(async () => {
      held = await createTestApp(
        {
          PUBLIC_BASE_URL: OWN_ORIGIN,
          OIDC_ISSUER: provider.issuer,
          OIDC_CLIENT_ID: provider.clientId,
          OIDC_CLIENT_SECRET: provider.clientSecret,
          MFA_REQUIRED_ROLES: 'admin',
          JWT_SECRET: t.jwt.secret,
        },
        { signIn: false },
      );
    });
    afterAll(async () => {
      await held?.close();
    });

    it('should hold an admin without a factor to enrolment after single sign-on, then open everything once enrolled', async () => {
      const [admin] = await held.dataSource.query<{ id: number; email: string }[]>(
        'SELECT id, email FROM users WHERE username = $1',
        [held.adminUser.username],
      );
      const res = await signIn({ email: admin.email, email_verified: true }, held);
      expect(res.status).toBe(302);
      const session = bearer((await refreshed(res, held)).token);

      // An ordinary session (no second factor asked), that reaches the enrolment routes only.
      expectError(
        await held.http.get(`/v1/users/${admin.id}`).set(session),
        403,
        'MFA_ENROLMENT_REQUIRED',
      );
      expectError(
        await held.http.get('/v1/auth/sessions').set(session),
        403,
        'MFA_ENROLMENT_REQUIRED',
      );
      expect((await held.http.get('/v1/auth/mfa').set(session).expect(200)).body).toEqual({
        totp: false,
      });
      const { secret } = (await held.http.post('/v1/auth/mfa/totp').set(session).expect(200))
        .body as { secret: string };
      await held.http
        .post('/v1/auth/mfa/totp/confirm')
        .set(session)
        .send({ code: await generate({ secret }) })
        .expect(200);

      // Enrolled, the same session reaches everything an admin may.
      await held.http.get(`/v1/users/${admin.id}`).set(session).expect(200);
      await held.http.get('/v1/auth/sessions').set(session).expect(200);
    });
  });

  describe('without OIDC_ISSUER', () => {
    let plain: TestApp;
    beforeAll(async () => {
      plain = await createTestApp({ JWT_SECRET: t.jwt.secret }, { signIn: false });
    });
    afterAll(async () => {
      await plain?.close();
    });

    it('should say so, and answer 404 SSO_NOT_CONFIGURED', async () => {
      expect((await plain.http.get('/v1/auth/sso/config').expect(200)).body).toEqual({
        enabled: false,
      });
      expectError(await plain.http.get('/v1/auth/sso'), 404, 'SSO_NOT_CONFIGURED');
      expectError(
        await plain.http.get('/v1/auth/sso/callback?code=x&state=y'),
        404,
        'SSO_NOT_CONFIGURED',
      );
    });
  });
});
