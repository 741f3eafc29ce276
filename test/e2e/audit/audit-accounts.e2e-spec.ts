import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { bearer, createApiKey, createUser } from '../../support/auth.js';
import { expectError } from '../../support/errors.js';
import { refuseInserts, REFUSED } from '../../support/refused-inserts.js';
import { TestSmtpServer, type ReceivedMail } from '../../support/smtp-server.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { expectInternalError } from '../../support/test-logs.js';
import { waitFor } from '../../support/wait.js';

/*
 * Contract section 8, "Audit log": the actions of accounts and credentials, each one entry
 * with its actor, target and changes, and never a secret.
 */
const USER_AGENT = 'audit-accounts-e2e/1.0';
const BASE_URL = 'https://shop.example.com';
const PASSWORD = 'a sign-up password';
const NEW_PASSWORD = 'a brand new password';
const LOOPBACK = /^(::ffff:)?127\.0\.0\.1$|^::1$/;

interface AuditEntry {
  id: number;
  action: string;
  [field: string]: unknown;
}

let counter = 0;
function person() {
  counter += 1;
  const username = `audited${counter}_${randomUUID().slice(0, 8)}`;
  return { username, email: `${username}@example.com`, password: PASSWORD };
}

function tokenIn({ parsed }: ReceivedMail, page: 'verify-email' | 'reset-password'): string {
  const match = new RegExp(`${BASE_URL}/console/${page}\\?token=([A-Za-z0-9_-]+)`).exec(
    parsed.text ?? '',
  );
  if (!match) throw new Error(`no ${page} link in: ${parsed.text}`);
  return match[1];
}

describe('Audit log of accounts and credentials (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  /** Every secret a test sent or received: none may be in any stored entry. */
  let secrets: string[];

  beforeAll(async () => {
    smtp = await TestSmtpServer.start();
    t = await createTestApp({
      OUTBOX_RETRY_BASE_MS: '10',
      OUTBOX_POLL_INTERVAL_MS: '50',
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: BASE_URL,
      REGISTRATION: 'open',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '999999',
      RATE_LIMIT_ANONYMOUS_PER_HOUR: '999999',
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });
  beforeEach(async () => {
    secrets = [PASSWORD, NEW_PASSWORD];
    await t.dataSource.query('TRUNCATE audit_events');
  });

  /** Every entry, newest first (the tests make fewer than a page). */
  const entries = async (query = ''): Promise<AuditEntry[]> => {
    const res = await t.http.get(`/v1/audit-events?limit=100${query}`).set(t.admin).expect(200);
    return res.body.auditEvents as AuditEntry[];
  };
  /** No secret of the test in any stored entry, whatever its column. */
  const expectNoSecretStored = async () => {
    const rows = await t.dataSource.query<{ entry: string }[]>(
      'SELECT row_to_json(a)::text AS entry FROM audit_events a',
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const { entry } of rows) {
      for (const secret of secrets) expect(entry).not.toContain(secret);
    }
  };
  const entry = (res: Response, fields: Record<string, unknown>): Record<string, unknown> => ({
    id: expect.any(Number),
    occurredAt: expect.any(String),
    outcome: 'success',
    ip: expect.stringMatching(LOOPBACK),
    userAgent: USER_AGENT,
    requestId: res.headers['x-request-id'],
    ...fields,
  });
  const asAdmin = () => ({
    userId: t.adminUser.id,
    username: t.adminUser.username,
    credential: 'jwt',
  });
  const post = (path: string, body: Record<string, unknown>, headers = {}) =>
    t.http.post(`/v1/${path}`).set(headers).set('User-Agent', USER_AGENT).send(body);
  const login = (username: string, password: string) => post('auth/login', { username, password });

  async function mailTo(to: string, nth = 1): Promise<ReceivedMail> {
    await waitFor(() => Promise.resolve(smtp.mailsTo(to).length >= nth), 10_000);
    return smtp.mailsTo(to)[nth - 1];
  }

  describe('logins', () => {
    it('should record a success by the user logging in, naming the session it started', async () => {
      const user = await createUser(t);
      await t.dataSource.query('TRUNCATE audit_events');

      const res = await login(user.username, user.password).expect(200);
      secrets.push(user.password, res.body.token as string, res.body.refreshToken as string);

      const sessions = await t.http
        .get('/v1/auth/sessions')
        .set(bearer(res.body.token as string))
        .expect(200);
      const [current] = (sessions.body.sessions as { id: number; current: boolean }[]).filter(
        (session) => session.current,
      );
      expect(await entries()).toEqual([
        entry(res, {
          action: 'auth.login',
          actor: { userId: user.id, username: user.username, credential: 'none' },
          target: { type: 'session', id: current.id },
        }),
      ]);
      await expectNoSecretStored();
    });

    it('should record each refusal (401 and 403) with the username tried, and no password', async () => {
      const unverified = person();
      await post('auth/register', unverified).expect(202);
      await t.dataSource.query('TRUNCATE audit_events');
      secrets.push('the wrong password');

      const wrong = await login(t.plainUser.username, 'the wrong password');
      expectError(wrong, 401, 'INVALID_CREDENTIALS');
      const unknown = await login('nobody-at-all', 'the wrong password');
      expectError(unknown, 401, 'INVALID_CREDENTIALS');
      const pending = await login(unverified.username, unverified.password);
      expectError(pending, 403, 'EMAIL_NOT_VERIFIED');

      await waitFor(async () => (await entries()).length >= 3);
      const failure = (res: Response, username: string) => ({
        ...entry(res, { action: 'auth.login', actor: { username, credential: 'none' } }),
        outcome: 'failure',
      });
      expect(await entries()).toEqual(
        expect.arrayContaining([
          failure(wrong, t.plainUser.username),
          failure(unknown, 'nobody-at-all'),
          failure(pending, unverified.username),
        ]),
      );
      expect(await entries()).toHaveLength(3);
      await expectNoSecretStored();
    });
  });

  it('should record a refusal with an over-long username, cut to 200 characters', async () => {
    // 254 characters, the longest a login takes, with a character outside the BMP at the cut.
    const tried = `${'a'.repeat(199)}🐕${'b'.repeat(54)}`;
    const refused = await login(tried, 'the wrong password');
    expectError(refused, 401, 'INVALID_CREDENTIALS');

    await waitFor(async () => (await entries()).length >= 1);
    expect(await entries()).toEqual([
      {
        ...entry(refused, {
          action: 'auth.login',
          actor: { username: `${'a'.repeat(199)}🐕`, credential: 'none' },
        }),
        outcome: 'failure',
      },
    ]);
  });

  describe('atomicity', () => {
    it('should start no session when the login’s entry cannot be written', async () => {
      const user = await createUser(t);
      const sessionsOf = async () => {
        const [{ count }] = await t.dataSource.query<{ count: number }[]>(
          'SELECT count(*)::int AS count FROM sessions WHERE user_id = $1',
          [user.id],
        );
        return count;
      };
      const before = await sessionsOf();
      const acceptEntries = await refuseInserts(t.dataSource, 'audit_events');
      try {
        await expectInternalError(await login(user.username, user.password), REFUSED);
      } finally {
        await acceptEntries();
      }

      expect(await sessionsOf()).toBe(before);
    });
  });

  describe('sessions', () => {
    it('should record a logout by the session’s user, and nothing for a token that ends none', async () => {
      const user = await createUser(t);
      const loggedIn = await login(user.username, user.password).expect(200);
      const refreshToken = loggedIn.body.refreshToken as string;
      secrets.push(user.password, refreshToken);
      const [{ id: sessionId }] = await t.dataSource.query<{ id: number }[]>(
        'SELECT id FROM sessions WHERE user_id = $1 ORDER BY id DESC LIMIT 1',
        [user.id],
      );
      await t.dataSource.query('TRUNCATE audit_events');

      const res = await post('auth/logout', { refreshToken }).expect(200);
      await post('auth/logout', { refreshToken }).expect(200);

      expect(await entries()).toEqual([
        entry(res, {
          action: 'auth.logout',
          actor: { userId: user.id, username: user.username, credential: 'none' },
          target: { type: 'session', id: sessionId },
        }),
      ]);
      await expectNoSecretStored();
    });

    it('should record a user revoking its own session, and an admin revoking all of a user’s, one entry each', async () => {
      const user = await createUser(t);
      await login(user.username, user.password).expect(200);
      const sessions = await t.http.get('/v1/auth/sessions').set(user.headers).expect(200);
      const other = (sessions.body.sessions as { id: number; current: boolean }[]).find(
        (session) => !session.current,
      );
      await t.dataSource.query('TRUNCATE audit_events');

      const own = await t.http
        .delete(`/v1/auth/sessions/${other?.id}`)
        .set(user.headers)
        .set('User-Agent', USER_AGENT)
        .expect(200);
      const all = await t.http
        .delete(`/v1/users/${user.id}/sessions`)
        .set(t.admin)
        .set('User-Agent', USER_AGENT)
        .expect(200);
      expectError(
        await t.http.delete(`/v1/auth/sessions/${other?.id}`).set(t.admin),
        404,
        'SESSION_NOT_FOUND',
      );

      expect(await entries()).toEqual([
        entry(all, {
          action: 'session.revoked',
          actor: asAdmin(),
          target: { type: 'user', id: user.id },
        }),
        entry(own, {
          action: 'session.revoked',
          actor: { userId: user.id, username: user.username, credential: 'jwt' },
          target: { type: 'session', id: other?.id },
        }),
      ]);
    });
  });

  describe('API keys', () => {
    it('should record a creation and a revocation with name, mode and prefix, never the key', async () => {
      const user = await createUser(t);
      await t.dataSource.query('TRUNCATE audit_events');

      const created = await post('api-keys', { name: 'ci', mode: 'test' }, user.headers).expect(
        201,
      );
      const { id, key, prefix } = created.body as { id: number; key: string; prefix: string };
      secrets.push(key, key.slice(prefix.length));
      const revoked = await t.http
        .delete(`/v1/api-keys/${id}`)
        .set(user.headers)
        .set('User-Agent', USER_AGENT)
        .expect(200);
      expectError(
        await t.http.delete(`/v1/api-keys/${id}`).set(user.headers),
        404,
        'API_KEY_NOT_FOUND',
      );

      const actor = { userId: user.id, username: user.username, credential: 'jwt' };
      const target = { type: 'api_key', id };
      expect(await entries()).toEqual([
        entry(revoked, {
          action: 'api_key.revoked',
          actor,
          target,
          changes: {
            name: { from: 'ci', to: null },
            mode: { from: 'test', to: null },
            prefix: { from: prefix, to: null },
          },
        }),
        entry(created, {
          action: 'api_key.created',
          actor,
          target,
          changes: {
            name: { from: null, to: 'ci' },
            mode: { from: null, to: 'test' },
            prefix: { from: null, to: prefix },
          },
        }),
      ]);
      await expectNoSecretStored();
    });

    it('should leave neither key nor entry when the entry cannot be written', async () => {
      const user = await createUser(t);
      await t.dataSource.query('TRUNCATE audit_events');
      const acceptEntries = await refuseInserts(t.dataSource, 'audit_events');
      try {
        await expectInternalError(
          await post('api-keys', { name: 'lost', mode: 'test' }, user.headers),
          REFUSED,
        );
      } finally {
        await acceptEntries();
      }

      const keys = await t.http.get('/v1/api-keys').set(user.headers).expect(200);
      expect(keys.body.apiKeys).toEqual([]);
      expect(await entries()).toEqual([]);
    });

    it('should keep the key of another user hidden and its revocation unrecorded', async () => {
      const owner = await createUser(t);
      const { id } = await createApiKey(t, owner.headers);
      await t.dataSource.query('TRUNCATE audit_events');

      expectError(await t.http.delete(`/v1/api-keys/${id}`).set(t.user), 404, 'API_KEY_NOT_FOUND');

      expect(await entries()).toEqual([]);
    });
  });

  describe('revocations by an account change', () => {
    /** A user with two sessions and two API keys, and the entries they will end with. */
    async function withCredentials() {
      const user = await createUser(t);
      await login(user.username, user.password).expect(200);
      const keys = [await createApiKey(t, user.headers), await createApiKey(t, user.headers)];
      const sessions = await t.dataSource.query<{ id: number }[]>(
        'SELECT id FROM sessions WHERE user_id = $1 AND revoked_at IS NULL ORDER BY id',
        [user.id],
      );
      expect(sessions).toHaveLength(2);
      secrets.push(user.password, ...keys.map(({ key }) => key));
      await t.dataSource.query('TRUNCATE audit_events');
      /** The revocations' entries, as the change of `res` by `actor` writes them. */
      const revoked = (res: Response, actor: Record<string, unknown>) => [
        ...sessions.map(({ id }) =>
          entry(res, { action: 'session.revoked', actor, target: { type: 'session', id } }),
        ),
        ...keys.map(({ id, prefix }) =>
          entry(res, {
            action: 'api_key.revoked',
            actor,
            target: { type: 'api_key', id },
            changes: {
              name: { from: 'ci', to: null },
              mode: { from: 'test', to: null },
              prefix: { from: prefix, to: null },
            },
          }),
        ),
      ];
      return { user, revoked };
    }
    /** Entries in one order whatever the order written: by action, then target id. */
    const byTarget = (a: Record<string, unknown>, b: Record<string, unknown>) => {
      const key = (e: Record<string, unknown>) =>
        `${String(e.action)}:${String((e.target as { id: number }).id).padStart(20, '0')}`;
      return key(a).localeCompare(key(b));
    };
    const revocations = async () =>
      (await entries())
        .filter(({ action }) => action === 'session.revoked' || action === 'api_key.revoked')
        .sort(byTarget);

    it('should record each session and API key a user’s own password change ends, by the user', async () => {
      const { user, revoked } = await withCredentials();

      const res = await t.http
        .put(`/v1/users/${user.id}`)
        .set(user.headers)
        .set('User-Agent', USER_AGENT)
        .send({ password: NEW_PASSWORD, currentPassword: user.password })
        .expect(200);

      const actor = { userId: user.id, username: user.username, credential: 'jwt' };
      expect(await revocations()).toEqual(revoked(res, actor).sort(byTarget));
      expect(await entries('&action=user.updated')).toHaveLength(1);
      await expectNoSecretStored();
    });

    it('should record each session and API key a reset ends, by the account', async () => {
      const { user, revoked } = await withCredentials();
      await post('auth/forgot-password', { email: user.email }).expect(202);
      const token = tokenIn(await mailTo(user.email), 'reset-password');
      secrets.push(token);

      const res = await post('auth/reset-password', { token, password: NEW_PASSWORD }).expect(200);

      const actor = { userId: user.id, username: user.username, credential: 'none' };
      expect(await revocations()).toEqual(revoked(res, actor).sort(byTarget));
      expect(await entries('&action=auth.password_reset')).toHaveLength(1);
      await expectNoSecretStored();
    });

    it('should record each session an admin’s deactivation ends, by the admin, and no suspended key', async () => {
      const { user, revoked } = await withCredentials();

      const res = await t.http
        .put(`/v1/users/${user.id}`)
        .set(t.admin)
        .set('User-Agent', USER_AGENT)
        .send({ userStatus: 1 })
        .expect(200);

      const sessions = revoked(res, asAdmin()).filter(({ action }) => action === 'session.revoked');
      expect(await revocations()).toEqual(sessions.sort(byTarget));
    });
  });

  describe('account flows', () => {
    it('should record a sign-up and its verification by the new account, with their changes', async () => {
      const who = person();
      const registered = await post('auth/register', who).expect(202);
      const token = tokenIn(await mailTo(who.email), 'verify-email');
      secrets.push(token);
      const verified = await post('auth/verify-email', { token }).expect(200);
      const [{ id }] = await t.dataSource.query<{ id: number }[]>(
        'SELECT id FROM users WHERE username = $1',
        [who.username],
      );

      const actor = { userId: id, username: who.username, credential: 'none' };
      const target = { type: 'user', id };
      expect(await entries()).toEqual([
        entry(verified, {
          action: 'auth.email_verified',
          actor,
          target,
          changes: { userStatus: { from: 2, to: 0 } },
        }),
        entry(registered, {
          action: 'auth.registered',
          actor,
          target,
          changes: {
            username: { from: null, to: who.username },
            email: { from: null, to: who.email },
            userStatus: { from: null, to: 2 },
            role: { from: null, to: 'customer' },
          },
        }),
      ]);
      await expectNoSecretStored();
    });

    it('should record an email change requested by the user, then confirmed by its link', async () => {
      const user = await createUser(t);
      secrets.push(user.password);
      const next = person().email;
      await t.dataSource.query('TRUNCATE audit_events');

      const requested = await t.http
        .put(`/v1/users/${user.id}`)
        .set(user.headers)
        .set('User-Agent', USER_AGENT)
        .send({ email: next, currentPassword: user.password })
        .expect(200);
      const token = tokenIn(await mailTo(next), 'verify-email');
      secrets.push(token);
      const confirmed = await post('auth/verify-email', { token }).expect(200);

      const target = { type: 'user', id: user.id };
      expect(await entries()).toEqual([
        entry(confirmed, {
          action: 'auth.email_verified',
          actor: { userId: user.id, username: user.username, credential: 'none' },
          target,
          changes: {
            email: { from: user.email, to: next },
            pendingEmail: { from: next, to: null },
          },
        }),
        entry(requested, {
          action: 'user.updated',
          actor: { userId: user.id, username: user.username, credential: 'jwt' },
          target,
          changes: { pendingEmail: { from: null, to: next } },
        }),
      ]);
      await expectNoSecretStored();
    });

    it('should record a sign-up with a taken address like any other, and a used link not at all', async () => {
      const who = person();
      await post('auth/register', who).expect(202);
      const token = tokenIn(await mailTo(who.email), 'verify-email');
      await post('auth/verify-email', { token }).expect(200);
      await t.dataSource.query('TRUNCATE audit_events');

      await post('auth/register', { ...person(), email: who.email }).expect(202);
      expectError(await post('auth/verify-email', { token }), 400, 'INVALID_TOKEN_VALUE');

      expect((await entries()).map(({ action }) => action)).toEqual(['auth.registered']);
    });

    it('should record a reset request for a known address only, then the reset by the account', async () => {
      const user = await createUser(t);
      secrets.push(user.password);
      await t.dataSource.query('TRUNCATE audit_events');

      const requested = await post('auth/forgot-password', { email: user.email }).expect(202);
      const unknown = await post('auth/forgot-password', { email: 'nobody@example.com' });
      expect(unknown.status).toBe(requested.status);
      expect(unknown.body).toEqual(requested.body);
      const token = tokenIn(await mailTo(user.email), 'reset-password');
      secrets.push(token);
      const reset = await post('auth/reset-password', { token, password: NEW_PASSWORD }).expect(
        200,
      );
      await login(user.username, NEW_PASSWORD).expect(200);

      const target = { type: 'user', id: user.id };
      expect(await entries('&action=auth.password_reset_requested')).toEqual([
        entry(requested, {
          action: 'auth.password_reset_requested',
          actor: { credential: 'none' },
          target,
        }),
      ]);
      expect(await entries('&action=auth.password_reset')).toEqual([
        entry(reset, {
          action: 'auth.password_reset',
          actor: { userId: user.id, username: user.username, credential: 'none' },
          target,
          changes: { password: { from: '[changed]', to: '[changed]' } },
        }),
      ]);
      // Besides, the login, and the session of createUser's login, which the reset ended.
      expect((await entries()).map(({ action }) => action).sort()).toEqual([
        'auth.login',
        'auth.password_reset',
        'auth.password_reset_requested',
        'session.revoked',
      ]);
      await expectNoSecretStored();
    });
  });

  describe('users', () => {
    it('should record an admin’s creation, update and deletion, the password only as changed', async () => {
      const who = person();
      const created = await post('users', { ...who, firstName: 'Ann' }, t.admin).expect(201);
      const id = created.body.id as number;
      const updated = await t.http
        .put(`/v1/users/${id}`)
        .set(t.admin)
        .set('User-Agent', USER_AGENT)
        .send({ firstName: 'Anna', password: NEW_PASSWORD })
        .expect(200);
      const deleted = await t.http
        .delete(`/v1/users/${id}`)
        .set(t.admin)
        .set('User-Agent', USER_AGENT)
        .expect(200);

      const target = { type: 'user', id };
      expect(await entries()).toEqual([
        entry(deleted, {
          action: 'user.deleted',
          actor: asAdmin(),
          target,
          changes: {
            username: { from: who.username, to: null },
            email: { from: who.email, to: null },
            firstName: { from: 'Anna', to: null },
            userStatus: { from: 0, to: null },
            role: { from: 'user', to: null },
          },
        }),
        entry(updated, {
          action: 'user.updated',
          actor: asAdmin(),
          target,
          changes: {
            firstName: { from: 'Ann', to: 'Anna' },
            password: { from: '[changed]', to: '[changed]' },
          },
        }),
        entry(created, {
          action: 'user.created',
          actor: asAdmin(),
          target,
          changes: {
            username: { from: null, to: who.username },
            email: { from: null, to: who.email },
            firstName: { from: null, to: 'Ann' },
            userStatus: { from: null, to: 0 },
            role: { from: null, to: 'user' },
          },
        }),
      ]);
      await expectNoSecretStored();
    });

    it('should record a user’s own edit by the user, and a refused one (409, 412) not at all', async () => {
      const user = await createUser(t);
      await t.dataSource.query('TRUNCATE audit_events');

      expectError(
        await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ email: t.plainUser.email }),
        409,
        'CONFLICT',
      );
      expectError(
        await t.http
          .put(`/v1/users/${user.id}`)
          .set(t.admin)
          .set('If-Match', '"999"')
          .send({ lastName: 'Never' }),
        412,
        'PRECONDITION_FAILED',
      );
      expectError(
        await t.http.delete(`/v1/users/${user.id}`).set(t.admin).set('If-Match', '"999"'),
        412,
        'PRECONDITION_FAILED',
      );
      const own = await t.http
        .put(`/v1/users/${user.id}`)
        .set(user.headers)
        .set('User-Agent', USER_AGENT)
        .send({ lastName: 'Smith' })
        .expect(200);

      expect(await entries()).toEqual([
        entry(own, {
          action: 'user.updated',
          actor: { userId: user.id, username: user.username, credential: 'jwt' },
          target: { type: 'user', id: user.id },
          changes: { lastName: { from: null, to: 'Smith' } },
        }),
      ]);
    });
  });
});
