import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { AccountMailAsked } from '../../../src/users/accounts/account-events.js';
import { MAIL_QUEUE } from '../../../src/mail/mail-queue.js';
import { ACCOUNT_ASKS, AccountsService } from '../../../src/users/accounts/accounts.service.js';
import { SignUpExpiryService } from '../../../src/users/sign-up-expiry.service.js';
import {
  apiKey,
  bearer,
  changeOwnPassword,
  createApiKey,
  createUser,
  type CreatedUser,
} from '../../support/auth.js';
import { expectError, expectValidationError } from '../../support/errors.js';
import {
  TestSmtpServer,
  type ReceivedMail,
  type TestSmtpServerOptions,
} from '../../support/smtp-server.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { outboxDrained, waitFor } from '../../support/wait.js';

/*
 * Contract section 8, "Accounts" (docs/identity.md, "Mailed tokens and account flows"):
 * sign-up, verification, reset, invitation and email change, with the mails read from a
 * real SMTP server started here.
 */
// Several instances share a database, and a table can be locked from outside, on a server
// only: the embedded database opens in one process, on one connection.
const onServer = process.env.DATABASE_URL ? it : it.skip;
const FAST_OUTBOX = { OUTBOX_RETRY_BASE_MS: '10', OUTBOX_POLL_INTERVAL_MS: '50' };
const BASE_URL = 'https://shop.example.com';
/** The consumers that answer sign-ups, resends and resets after their answer, and mail. */
const CONSUMERS = [ACCOUNT_ASKS, MAIL_QUEUE];
const PASSWORD = 'a sign-up password';
const NEW_PASSWORD = 'a brand new password';

const REGISTERED = {
  message: 'Check your mailbox: the link we sent confirms your address and activates the account',
};
const RESENT = {
  message: 'If an account with this address awaits verification, a new link is on its way',
};
const FORGOTTEN = {
  message: 'If an account has this address, a link to reset its password is on its way',
};

let counter = 0;
function person() {
  counter += 1;
  const username = `person${counter}_${randomUUID().slice(0, 8)}`;
  return { username, email: `${username}@example.com`, password: PASSWORD };
}

/** The token of the mail's link to `page`, checked in both parts. */
function tokenIn({ parsed }: ReceivedMail, page: 'verify-email' | 'reset-password'): string {
  const match = new RegExp(`${BASE_URL}/console/${page}\\?token=([A-Za-z0-9_-]+)`).exec(
    parsed.text ?? '',
  );
  if (!match) throw new Error(`no ${page} link in: ${parsed.text}`);
  expect(parsed.html).toContain(`href="${match[0]}"`);
  expect(match[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return match[1];
}

/** A real SMTP server, and an app that mails it through a fast outbox, with `env`. */
async function mailingApp(env: Record<string, string>, smtpOptions?: TestSmtpServerOptions) {
  const smtp = await TestSmtpServer.start(smtpOptions);
  const t = await createTestApp({
    ...FAST_OUTBOX,
    SMTP_URL: smtp.url,
    PUBLIC_BASE_URL: BASE_URL,
    ...env,
  });
  return { smtp, t };
}

/** Waits for the nth mail to `to` (1 by default), of `subject` if given, and returns it. */
async function waitForMail(
  smtp: TestSmtpServer,
  to: string,
  nth = 1,
  subject?: string,
): Promise<ReceivedMail> {
  const mails = () =>
    smtp.mailsTo(to).filter((mail) => subject === undefined || mail.parsed.subject === subject);
  await waitFor(() => Promise.resolve(mails().length >= nth), 10_000);
  return mails()[nth - 1];
}

/** The event of a reset asked for `email` at `askedAt`, as the outbox hands it over. */
const resetAsk = (email: string, askedAt: Date): AccountMailAsked => ({
  type: 'account.mail_asked',
  subject: `address:${email}`,
  ask: 'password-reset',
  email,
  requester: 'ip-203.0.113.50',
  request: { ip: '203.0.113.50', userAgent: null, requestId: randomUUID(), clientRequestId: null },
  askedAt: askedAt.toISOString(),
});
/** An outbox message id no real message has. */
const outboxMessageId = () => 9_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

const changePassword = (t: TestApp, user: CreatedUser) => changeOwnPassword(t, user, NEW_PASSWORD);

/**
 * An admin's change of the user's email, and back: the address names the account again, so
 * that only the change's time keeps a reset asked before it from mailing a link.
 */
async function changeEmailAndBack(t: TestApp, user: CreatedUser) {
  for (const email of [`moved.${user.email}`, user.email]) {
    await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ email }).expect(200);
  }
}

/** The changes that end a reset asked before them (docs/api-decisions.md, "Accounts" 18). */
const CREDENTIAL_CHANGES = [
  ['password', changePassword],
  ['email', changeEmailAndBack],
] as const;

describe('Accounts (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    ({ smtp, t } = await mailingApp({
      REGISTRATION: 'open',
      METRICS_ENABLED: 'true',
      // Apart from the other tiers' generous limits, so that the tier spent shows.
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '999999',
      RATE_LIMIT_ANONYMOUS_PER_HOUR: '999999',
    }));
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const post = (path: string, body: Record<string, unknown>) =>
    t.http.post(`/v1/auth/${path}`).send(body);
  const login = (username: string, password: string) => post('login', { username, password });

  const mailTo = (to: string, nth?: number, subject?: string) =>
    waitForMail(smtp, to, nth, subject);

  const drained = () => outboxDrained(t, CONSUMERS);

  async function registered(): Promise<ReturnType<typeof person> & { id: number; token: string }> {
    const who = person();
    await post('register', who).expect(202);
    const token = tokenIn(await mailTo(who.email), 'verify-email');
    const [{ id }] = await t.dataSource.query<{ id: number }[]>(
      'SELECT id FROM users WHERE username = $1',
      [who.username],
    );
    return { ...who, id: Number(id), token };
  }

  describe('sign-up and verification', () => {
    it('should register, mail the link, verify, log in, refresh, revoke on reuse and log out', async () => {
      const who = person();

      const res = await post('register', { ...who, firstName: 'Ada' }).expect(202);

      expect(res.body).toEqual(REGISTERED);
      const mail = await mailTo(who.email);
      expect(mail.parsed.subject).toBe('Confirm your email address');
      // The address is not verified: the mail carries no text the sign-up chose.
      expect(mail.parsed.text).toMatch(/^Hello,\n/);
      expect(mail.parsed.text).not.toContain(who.username);
      expect(mail.parsed.html).not.toContain(who.username);
      const token = tokenIn(mail, 'verify-email');
      const [row] = await t.dataSource.query<Record<string, unknown>[]>(
        `SELECT role, user_status AS "userStatus", first_name AS "firstName" FROM users
          WHERE username = $1`,
        [who.username],
      );
      expect(row).toEqual({ role: 'customer', userStatus: 2, firstName: 'Ada' });

      expect((await post('verify-email', { token }).expect(200)).body).toEqual({
        message: 'Your email address is verified',
      });

      const first = (await login(who.username, who.password).expect(200)).body;
      const second = (await post('refresh', { refreshToken: first.refreshToken }).expect(200)).body;
      expectError(
        await post('refresh', { refreshToken: first.refreshToken }),
        401,
        'INVALID_REFRESH_TOKEN',
      );
      // The reuse revoked the whole session: the sibling token is dead too.
      expectError(
        await post('refresh', { refreshToken: second.refreshToken }),
        401,
        'INVALID_REFRESH_TOKEN',
      );
      const again = (await login(who.username, who.password).expect(200)).body;
      expect((await post('logout', { refreshToken: again.refreshToken }).expect(200)).body).toEqual(
        {},
      );
      expectError(
        await post('refresh', { refreshToken: again.refreshToken }),
        401,
        'INVALID_REFRESH_TOKEN',
      );
    });

    it('should refuse an unverified account 403 EMAIL_NOT_VERIFIED with the right password, 401 with a wrong one', async () => {
      const who = person();
      await post('register', who).expect(202);

      expectError(await login(who.username, who.password), 403, 'EMAIL_NOT_VERIFIED');
      expectError(await login(who.username, 'not the password'), 401, 'INVALID_CREDENTIALS');
    });

    it('should answer a taken username 409 CONFLICT, and apply the rules of POST /users', async () => {
      const who = person();
      await post('register', who).expect(202);

      const taken = await post('register', {
        ...person(),
        username: who.username.toUpperCase(),
      });
      expectError(taken, 409, 'CONFLICT');
      expect(taken.body.details).toEqual({ field: 'username' });
      expectValidationError(
        await post('register', { username: 'x', email: 'not an address', password: 'short' }),
        ['username', 'email', 'password'],
      );
      expectValidationError(await post('register', { ...person(), role: 'admin' }), ['role']);
    });

    it('should spend a verification token once, and refuse unknown, malformed and expired ones alike', async () => {
      const first = await registered();
      await post('verify-email', { token: first.token }).expect(200);
      const second = await registered();
      await t.dataSource.query(
        `UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`,
        [second.id],
      );

      for (const token of [
        first.token,
        second.token,
        'A'.repeat(43),
        'not a token',
        `${first.token}x`,
      ]) {
        expectError(await post('verify-email', { token }), 400, 'INVALID_TOKEN_VALUE');
      }
      expectValidationError(await post('verify-email', {}), ['token']);
    });

    it('should refuse a token on the route of another purpose', async () => {
      const who = await registered();

      expectError(
        await post('reset-password', { token: who.token, password: NEW_PASSWORD }),
        400,
        'INVALID_TOKEN_VALUE',
      );
      // Not spent by the refusal.
      await post('verify-email', { token: who.token }).expect(200);
    });

    it('should mail a new link on resend for a pending account, which the older one does not outlive', async () => {
      const who = await registered();

      expect((await post('resend-verification', { email: who.email }).expect(202)).body).toEqual(
        RESENT,
      );

      const token = tokenIn(await mailTo(who.email, 2), 'verify-email');
      await post('verify-email', { token }).expect(200);
      expectError(await post('verify-email', { token: who.token }), 400, 'INVALID_TOKEN_VALUE');
      await login(who.username, who.password).expect(200);
    });

    it('should mail a resend’s link to the newest sign-up of the address, not to a stranger’s earlier one', async () => {
      const owner = person();
      const stranger = { ...person(), email: owner.email };
      await post('register', stranger).expect(202);
      const strangers = tokenIn(await mailTo(owner.email), 'verify-email');
      await post('register', owner).expect(202);
      await mailTo(owner.email, 2);

      await post('resend-verification', { email: owner.email }).expect(202);
      const token = tokenIn(await mailTo(owner.email, 3), 'verify-email');
      await post('verify-email', { token }).expect(200);

      await login(owner.username, owner.password).expect(200);
      expectError(await login(stranger.username, stranger.password), 403, 'EMAIL_NOT_VERIFIED');
      expectError(await post('verify-email', { token: strangers }), 409, 'CONFLICT');
    });
  });

  describe('unverified sign-ups', () => {
    /** Dates the accounts' creation `hours` back. */
    const madeAgo = (hours: number, ids: number[]) =>
      t.dataSource.query(
        `UPDATE users SET created_at = now() - $1 * interval '1 hour' WHERE id = ANY($2)`,
        [hours, ids],
      );
    const existing = async (ids: number[]) =>
      (
        await t.dataSource.query<{ id: string }[]>(
          'SELECT id FROM users WHERE id = ANY($1) ORDER BY id',
          [ids],
        )
      ).map(({ id }) => Number(id));
    const deletions = async (id: number) =>
      (
        await t.http
          .get(`/v1/audit-events?action=user.deleted&targetType=user&targetId=${id}`)
          .set(t.admin)
          .expect(200)
      ).body.auditEvents as Record<string, unknown>[];

    it('should remove a sign-up unverified for UNVERIFIED_ACCOUNT_TTL_HOURS (72), freeing its username and address', async () => {
      const expired = await registered();
      const recent = await registered();
      const invitee = person();
      const invited = await t.http
        .post('/v1/users')
        .set(t.admin)
        .send({ username: invitee.username, email: invitee.email, invite: true })
        .expect(201);
      const verified = await registered();
      await post('verify-email', { token: verified.token }).expect(200);
      // Pending again by an admin's hand: a verified sign-up all the same.
      await t.http.put(`/v1/users/${verified.id}`).set(t.admin).send({ userStatus: 2 }).expect(200);
      const kept = [recent.id, invited.body.id as number, verified.id];
      await madeAgo(73, [expired.id, invited.body.id, verified.id]);
      await madeAgo(71, [recent.id]);

      expect(await t.app.get(SignUpExpiryService).removeExpired()).toBe(1);

      expect(await existing([expired.id, ...kept])).toEqual(kept.sort((a, b) => a - b));
      expectError(await post('verify-email', { token: expired.token }), 400, 'INVALID_TOKEN_VALUE');
      expect(await deletions(expired.id)).toEqual([
        {
          id: expect.any(Number),
          occurredAt: expect.any(String),
          action: 'user.deleted',
          outcome: 'success',
          actor: { credential: 'none' },
          target: { type: 'user', id: expired.id },
          changes: {
            username: { from: expired.username, to: null },
            email: { from: expired.email, to: null },
            userStatus: { from: 2, to: null },
            role: { from: 'customer', to: null },
          },
        },
      ]);

      await post('register', {
        username: expired.username.toUpperCase(),
        email: expired.email,
        password: NEW_PASSWORD,
      }).expect(202);
      const token = tokenIn(await mailTo(expired.email, 2), 'verify-email');
      await post('verify-email', { token }).expect(200);
      await login(expired.username.toUpperCase(), NEW_PASSWORD).expect(200);
    });
  });

  describe('no enumeration', () => {
    it('should answer every sign-up sequence alike for a taken email and a free one, and mail the owner', async () => {
      const owner = await createUser(t);
      const taken = { ...person(), email: owner.email.toUpperCase() };
      const free = person();
      /** What a caller sees of an answer: its status and its body but the request id. */
      const seen = ({ status, body }: { status: number; body: Record<string, unknown> }) => {
        const { requestId: _, ...rest } = body;
        return { status, body: rest };
      };
      const sequence = async (who: typeof free) => [
        seen(await post('register', who)),
        seen(await login(who.username, who.password)),
        seen(await post('register', who)),
        seen(await post('register', { ...who, username: `${who.username}x` })),
        seen(await login(`${who.username}x`, who.password)),
      ];

      const known = await sequence(taken);
      const unknown = await sequence(free);

      expect(known).toEqual(unknown);
      expect(unknown.map(({ status }) => status)).toEqual([202, 403, 409, 202, 403]);
      const mail = await mailTo(owner.email);
      expect(mail.parsed.subject).toBe('Someone tried to sign up with your address');
      expect(mail.parsed.text).toContain(`Hello ${owner.username},`);
      expect(mail.parsed.text).not.toContain('token=');
      expect(mail.parsed.text).not.toContain(taken.username);
      // The new accounts can never be verified: the owner's address stays its alone.
      await post('resend-verification', { email: owner.email }).expect(202);
      await drained();
      expect(smtp.mailsTo(owner.email).map((m) => m.parsed.subject)).toEqual([
        'Someone tried to sign up with your address',
        'Someone tried to sign up with your address',
      ]);
    });

    it('should refuse to verify a sign-up whose address another account verified since, 409', async () => {
      const who = await registered();
      await t.http
        .post('/v1/users')
        .set(t.admin)
        .send({ ...person(), email: who.email.toUpperCase() })
        .expect(201);

      const res = await post('verify-email', { token: who.token });

      expectError(res, 409, 'CONFLICT');
      expect(res.body.details).toEqual({ field: 'email' });
      expectError(await login(who.username, who.password), 403, 'EMAIL_NOT_VERIFIED');
    });

    it('should record a reset request for a known address after the answer, with the request’s origin', async () => {
      const user = await createUser(t);
      const auditOf = () =>
        t.dataSource.query<Record<string, unknown>[]>(
          `SELECT ip, request_id AS "requestId", user_agent AS "userAgent" FROM audit_events
            WHERE action = 'auth.password_reset_requested' AND target_id = $1`,
          [user.id],
        );

      const res = await t.http
        .post('/v1/auth/forgot-password')
        .set('User-Agent', 'a reset test')
        .send({ email: user.email })
        .expect(202);

      await waitFor(async () => (await auditOf()).length > 0, 10_000);
      expect(await auditOf()).toEqual([
        {
          ip: expect.any(String),
          requestId: res.headers['x-request-id'],
          userAgent: 'a reset test',
        },
      ]);
      await mailTo(user.email);
    });

    // The embedded database has one connection: a lock held by the test would stop the app.
    onServer(
      'should answer a reset request while its audit entry cannot be written yet',
      async () => {
        const user = await createUser(t);
        const holder = t.dataSource.createQueryRunner();
        await holder.connect();
        await holder.startTransaction();
        try {
          await holder.query('LOCK TABLE audit_events IN EXCLUSIVE MODE');

          await post('forgot-password', { email: user.email }).timeout(5_000).expect(202);
        } finally {
          await holder.rollbackTransaction();
          await holder.release();
        }
        await mailTo(user.email);
        const [{ count }] = await t.dataSource.query<{ count: number }[]>(
          `SELECT count(*)::int AS count FROM audit_events
          WHERE action = 'auth.password_reset_requested' AND target_id = $1`,
          [user.id],
        );
        expect(count).toBe(1);
      },
    );

    it('should answer an ask handed over again (a batch retried after a later ask failed) once', async () => {
      const user = await createUser(t);
      const ask = resetAsk(user.email, new Date());
      const messageId = outboxMessageId();
      const asks = t.app.get(AccountsService);

      await asks.onMailAsked([ask], [messageId]);
      await asks.onMailAsked([ask], [messageId]);

      await mailTo(user.email);
      await drained();
      const [{ tokens, entries }] = await t.dataSource.query<{ tokens: number; entries: number }[]>(
        `SELECT (SELECT count(*)::int FROM account_tokens WHERE user_id = $1) AS tokens,
                (SELECT count(*)::int FROM audit_events
                  WHERE action = 'auth.password_reset_requested' AND target_id = $1) AS entries`,
        [user.id],
      );
      expect({ tokens, entries, mails: smtp.mailsTo(user.email).length }).toEqual({
        tokens: 1,
        entries: 1,
        mails: 1,
      });
    });

    it.each(CREDENTIAL_CHANGES)(
      'should answer no reset asked before the %s changed, when the outbox comes to it after',
      async (_, change) => {
        const user = await createUser(t);
        const askedAt = new Date();
        await change(t, user);

        await t.app
          .get(AccountsService)
          .onMailAsked([resetAsk(user.email, askedAt)], [outboxMessageId()]);

        await drained();
        expect(
          smtp.mailsTo(user.email).filter((mail) => mail.parsed.subject === 'Reset your password'),
        ).toEqual([]);
        const [{ tokens }] = await t.dataSource.query<{ tokens: number }[]>(
          'SELECT count(*)::int AS tokens FROM account_tokens WHERE user_id = $1',
          [user.id],
        );
        expect(tokens).toBe(0);
      },
    );

    it('should answer resend and forgot the same for known and unknown addresses', async () => {
      const pending = await registered();
      const active = await createUser(t);
      const nobody = person().email;

      for (const [path, email, expected] of [
        ['resend-verification', pending.email, RESENT],
        ['resend-verification', nobody, RESENT],
        ['resend-verification', active.email, RESENT],
        ['forgot-password', active.email, FORGOTTEN],
        ['forgot-password', nobody, FORGOTTEN],
      ] as const) {
        const res = await post(path, { email });
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 202,
          body: expected,
        });
      }
      await mailTo(pending.email, 2);
      await mailTo(active.email);
      await drained();
      expect(smtp.mailsTo(nobody)).toEqual([]);
      // An active account gets no verification mail, only the reset one.
      expect(smtp.mailsTo(active.email).map((mail) => mail.parsed.subject)).toEqual([
        'Reset your password',
      ]);
    });

    it('should send at most 3 mails an hour to one address, whatever its case, answering the same', async () => {
      const user = await createUser(t);

      for (let i = 0; i < 4; i += 1) {
        const email = i % 2 ? user.email.toUpperCase() : user.email;
        expect((await post('forgot-password', { email }).expect(202)).body).toEqual(FORGOTTEN);
      }

      await mailTo(user.email, 3);
      await drained();
      expect(smtp.mailsTo(user.email)).toHaveLength(3);
      const [{ count }] = await t.dataSource.query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM account_tokens WHERE user_id = $1`,
        [user.id],
      );
      expect(count).toBe(3);
    });
  });

  describe('password reset', () => {
    it('should reset the password and end the sessions, earlier access tokens and API keys', async () => {
      const user = await createUser(t);
      const session = (await login(user.username, user.password).expect(200)).body;
      const key = await createApiKey(t, user.headers);

      await post('forgot-password', { email: user.email }).expect(202);
      const mail = await mailTo(user.email);
      expect(mail.parsed.subject).toBe('Reset your password');
      const token = tokenIn(mail, 'reset-password');

      expect(
        (await post('reset-password', { token, password: NEW_PASSWORD }).expect(200)).body,
      ).toEqual({ message: 'Your password is set; sign in with it' });

      expectError(
        await post('refresh', { refreshToken: session.refreshToken }),
        401,
        'INVALID_REFRESH_TOKEN',
      );
      expectError(
        await t.http.get(`/v1/users/${user.id}`).set(bearer(session.token)),
        401,
        'INVALID_TOKEN',
      );
      expectError(
        await t.http.get(`/v1/users/${user.id}`).set(apiKey(key.key)),
        401,
        'INVALID_API_KEY',
      );
      expectError(await login(user.username, user.password), 401, 'INVALID_CREDENTIALS');
      await login(user.username, NEW_PASSWORD).expect(200);
      expectError(
        await post('reset-password', { token, password: 'yet another password' }),
        400,
        'INVALID_TOKEN_VALUE',
      );
    });

    it('should verify a pending address on reset, and refuse an expired reset token', async () => {
      const who = await registered();
      await post('forgot-password', { email: who.email }).expect(202);
      const reset = await mailTo(who.email, 2);
      expect(reset.parsed.text).toMatch(/^Hello,\n/);
      expect(reset.parsed.text).not.toContain(who.username);
      const token = tokenIn(reset, 'reset-password');

      await post('reset-password', { token, password: NEW_PASSWORD }).expect(200);
      await login(who.username, NEW_PASSWORD).expect(200);

      await post('forgot-password', { email: who.email }).expect(202);
      const late = tokenIn(await mailTo(who.email, 2, 'Reset your password'), 'reset-password');
      await t.dataSource.query(
        `UPDATE account_tokens SET expires_at = now() - interval '1 second'
          WHERE user_id = $1 AND used_at IS NULL`,
        [who.id],
      );
      expectError(
        await post('reset-password', { token: late, password: NEW_PASSWORD }),
        400,
        'INVALID_TOKEN_VALUE',
      );
    });

    it('should refuse a reset link mailed before the user’s own password change', async () => {
      const user = await createUser(t);
      await post('forgot-password', { email: user.email }).expect(202);
      const token = tokenIn(await mailTo(user.email), 'reset-password');

      await changePassword(t, user);

      expectError(
        await post('reset-password', { token, password: 'a password of the link' }),
        400,
        'INVALID_TOKEN_VALUE',
      );
      await login(user.username, NEW_PASSWORD).expect(200);
    });

    it('should refuse a reset link mailed before an email change, by its link or by an admin', async () => {
      const own = await createUser(t);
      await post('forgot-password', { email: own.email }).expect(202);
      const before = tokenIn(await mailTo(own.email), 'reset-password');
      const next = person().email;
      await t.http
        .put(`/v1/users/${own.id}`)
        .set(own.headers)
        .send({ email: next, currentPassword: own.password })
        .expect(200);
      await post('verify-email', { token: tokenIn(await mailTo(next), 'verify-email') }).expect(
        200,
      );
      const changed = await createUser(t);
      await post('forgot-password', { email: changed.email }).expect(202);
      const beforeAdmin = tokenIn(await mailTo(changed.email), 'reset-password');
      await t.http
        .put(`/v1/users/${changed.id}`)
        .set(t.admin)
        .send({ email: person().email })
        .expect(200);

      for (const token of [before, beforeAdmin]) {
        expectError(
          await post('reset-password', { token, password: NEW_PASSWORD }),
          400,
          'INVALID_TOKEN_VALUE',
        );
      }
      await login(own.username, own.password).expect(200);
      await login(changed.username, changed.password).expect(200);
    });

    it('should refuse the invitation and reset links of an account once one of them is used', async () => {
      const who = person();
      const invited = await t.http
        .post('/v1/users')
        .set(t.admin)
        .send({ username: who.username, email: who.email, invite: true })
        .expect(201);
      const invitation = tokenIn(await mailTo(who.email), 'reset-password');
      await post('forgot-password', { email: who.email }).expect(202);
      const reset = tokenIn(await mailTo(who.email, 2), 'reset-password');

      await post('reset-password', { token: reset, password: NEW_PASSWORD }).expect(200);

      expectError(
        await post('reset-password', { token: invitation, password: 'an invited password' }),
        400,
        'INVALID_TOKEN_VALUE',
      );
      const [{ userStatus }] = await t.dataSource.query<{ userStatus: number }[]>(
        'SELECT user_status AS "userStatus" FROM users WHERE id = $1',
        [invited.body.id],
      );
      expect(userStatus).toBe(0);
      await login(who.username, NEW_PASSWORD).expect(200);
    });

    it('should check the new password by the rules of POST /users', async () => {
      expectValidationError(await post('reset-password', { token: 'x', password: 'short' }), [
        'password',
      ]);
    });
  });

  describe('invitations', () => {
    it('should create a pending account, mail a 7-day link that sets the password and activates it', async () => {
      const who = person();

      const created = await t.http
        .post('/v1/users')
        .set(t.admin)
        .send({ username: who.username, email: who.email, invite: true })
        .expect(201);

      expect(created.body).toMatchObject({ username: who.username, userStatus: 2, role: 'user' });
      const mail = await mailTo(who.email);
      expect(mail.parsed.subject).toBe('You are invited to the pet store');
      const token = tokenIn(mail, 'reset-password');
      const [{ seconds }] = await t.dataSource.query<{ seconds: number }[]>(
        `SELECT extract(epoch FROM expires_at - created_at)::int AS seconds FROM account_tokens
          WHERE user_id = $1`,
        [created.body.id],
      );
      expect(seconds).toBe(7 * 24 * 3600);

      await post('reset-password', { token, password: NEW_PASSWORD }).expect(200);

      const me = await login(who.username, NEW_PASSWORD).expect(200);
      const read = await t.http
        .get(`/v1/users/${created.body.id}`)
        .set(bearer(me.body.token))
        .expect(200);
      expect(read.body.userStatus).toBe(0);
    });

    it('should refuse an invitation to an address another account has verified, not to a pending sign-up’s', async () => {
      const owner = await createUser(t);
      const pending = await registered();
      const invite = (email: string) =>
        t.http
          .post('/v1/users')
          .set(t.admin)
          .send({ username: person().username, email, invite: true });

      const taken = await invite(owner.email.toUpperCase());

      expectError(taken, 409, 'CONFLICT');
      expect(taken.body.details).toEqual({ field: 'email' });
      await invite(pending.email).expect(201);
    });

    it('should refuse a password with invite: true, and require one without', async () => {
      const who = person();
      expectValidationError(
        await t.http
          .post('/v1/users')
          .set(t.admin)
          .send({ ...who, invite: true }),
        ['password'],
      );
      expectValidationError(
        await t.http
          .post('/v1/users')
          .set(t.admin)
          .send({ username: who.username, email: who.email }),
        ['password'],
      );
      expectValidationError(
        await t.http.put(`/v1/users/${t.plainUser.id}`).set(t.admin).send({ invite: true }),
        ['invite'],
      );
    });
  });

  describe('email change', () => {
    const put = (id: number, headers: Record<string, string>, body: Record<string, unknown>) =>
      t.http.put(`/v1/users/${id}`).set(headers).send(body);

    it('should keep the old email with pendingEmail until the link mailed to the new one is used', async () => {
      const user = await createUser(t);
      const next = person().email;

      const res = await put(user.id, user.headers, {
        email: next,
        currentPassword: user.password,
      }).expect(200);

      expect(res.body).toMatchObject({ email: user.email, pendingEmail: next });
      const mail = await mailTo(next);
      expect(mail.parsed.subject).toBe('Confirm your new email address');
      const token = tokenIn(mail, 'verify-email');
      expect(
        (await t.http.get(`/v1/users/${user.id}`).set(t.admin).expect(200)).body.pendingEmail,
      ).toBe(next);

      await post('verify-email', { token }).expect(200);

      const read = await t.http.get(`/v1/users/${user.id}`).set(user.headers).expect(200);
      expect(read.body.email).toBe(next);
      expect(read.body).not.toHaveProperty('pendingEmail');
      expectError(await post('verify-email', { token }), 400, 'INVALID_TOKEN_VALUE');
    });

    it('should treat a taken address like a free one, mail its owner, and never change it', async () => {
      const user = await createUser(t);
      const owner = await createUser(t);

      const res = await put(user.id, user.headers, {
        email: owner.email,
        currentPassword: user.password,
      }).expect(200);

      expect(res.body).toMatchObject({ email: user.email, pendingEmail: owner.email });
      const mail = await mailTo(owner.email);
      expect(mail.parsed.subject).toBe('Someone tried to use your address');
      expect(mail.parsed.text).not.toContain('token=');
      await drained();
      expect(smtp.mailsTo(owner.email)).toHaveLength(1);
      const read = await t.http.get(`/v1/users/${user.id}`).set(t.admin).expect(200);
      expect(read.body.email).toBe(user.email);
    });

    it('should answer 409 CONFLICT when the address was taken between the request and its link', async () => {
      const user = await createUser(t);
      const next = person();
      await put(user.id, user.headers, { email: next.email, currentPassword: user.password });
      const token = tokenIn(await mailTo(next.email), 'verify-email');
      await t.http
        .post('/v1/users')
        .set(t.admin)
        .send({ ...next, email: next.email.toUpperCase() })
        .expect(201);

      const res = await post('verify-email', { token });

      expectError(res, 409, 'CONFLICT');
      expect(res.body.details).toEqual({ field: 'email' });
    });

    it('should drop a link superseded by a later change', async () => {
      const user = await createUser(t);
      const first = person().email;
      await put(user.id, user.headers, { email: first, currentPassword: user.password });
      const stale = tokenIn(await mailTo(first), 'verify-email');

      await put(user.id, user.headers, { email: user.email, currentPassword: user.password })
        .expect(200)
        .expect((res) => expect(res.body).not.toHaveProperty('pendingEmail'));

      expectError(await post('verify-email', { token: stale }), 400, 'INVALID_TOKEN_VALUE');
    });

    it('should change another user’s email at once when an admin does', async () => {
      const user = await createUser(t);
      const next = person().email;

      const res = await put(user.id, t.admin, { email: next }).expect(200);

      expect(res.body.email).toBe(next);
      expect(res.body).not.toHaveProperty('pendingEmail');
    });
  });

  it('should count the account routes on the anonymous budget of the client address, like login', async () => {
    const limitOf = (res: { headers: Record<string, string> }) => res.headers['x-ratelimit-limit'];
    const anonymous = limitOf(await login('nobody', 'not the password'));
    const routes: [string, Record<string, unknown>][] = [
      ['register', person()],
      ['verify-email', { token: 'x' }],
      ['resend-verification', { email: person().email }],
      ['forgot-password', { email: person().email }],
      ['reset-password', { token: 'x', password: NEW_PASSWORD }],
    ];

    for (const [path, body] of routes) {
      const res = await post(path, body);
      expect({
        path,
        limit: limitOf(res),
        counted: Number(res.headers['x-ratelimit-remaining']),
      }).toEqual({
        path,
        limit: anonymous,
        counted: expect.any(Number),
      });
    }
    // The bearer budget is another one: the anonymous tier is what these routes spend.
    expect(limitOf(await t.http.get('/v1/rate-limit').set(t.user))).not.toBe(anonymous);
  });

  it('should count the mails sent by template', async () => {
    await registered();

    const metrics = (await t.http.get('/metrics').expect(200)).text;
    expect(metrics).toMatch(
      /^petstore_mails_total\{template="verification",outcome="sent"\} [1-9]\d*$/m,
    );
  });
});

describe('Accounts with REGISTRATION=closed (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    ({ smtp, t } = await mailingApp({ REGISTRATION: 'closed' }));
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('should refuse sign-up 403 REGISTRATION_CLOSED, while invitations and reset work', async () => {
    expectError(await t.http.post('/v1/auth/register').send(person()), 403, 'REGISTRATION_CLOSED');

    const who = person();
    await t.http
      .post('/v1/users')
      .set(t.admin)
      .send({ username: who.username, email: who.email, invite: true })
      .expect(201);
    const token = tokenIn(await waitForMail(smtp, who.email), 'reset-password');
    await t.http
      .post('/v1/auth/reset-password')
      .send({ token, password: NEW_PASSWORD })
      .expect(200);
    await t.http
      .post('/v1/auth/login')
      .send({ username: who.username, password: NEW_PASSWORD })
      .expect(200);
  });

  it('should verify an address while sign-up is closed', async () => {
    const user = await createUser(t);
    const next = person().email;
    await t.http
      .put(`/v1/users/${user.id}`)
      .set(user.headers)
      .send({ email: next, currentPassword: user.password })
      .expect(200);
    const token = tokenIn(await waitForMail(smtp, next), 'verify-email');
    await t.http.post('/v1/auth/verify-email').send({ token }).expect(200);
  });
});

describe('Account mails, the SMTP server refusing at first (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    ({ smtp, t } = await mailingApp(
      { OUTBOX_MAX_ATTEMPTS: '1', REGISTRATION: 'open' },
      { refuseFirst: { count: 2, code: 451 } },
    ));
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('should retry a refused verification mail until it is accepted, and deliver it once', async () => {
    const who = person();

    await t.http.post('/v1/auth/register').send(who).expect(202);

    const token = tokenIn(await waitForMail(smtp, who.email), 'verify-email');
    await outboxDrained(t, CONSUMERS);
    expect(smtp.refused).toBe(2);
    expect(smtp.mailsTo(who.email)).toHaveLength(1);
    await t.http.post('/v1/auth/verify-email').send({ token }).expect(200);
  });
});

describe('Account mails, the SMTP server refusing the first, retried a minute later (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    ({ smtp, t } = await mailingApp(
      { OUTBOX_RETRY_BASE_MS: '60000', REGISTRATION: 'open' },
      { refuseFirst: { count: 1, code: 451 } },
    ));
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const invite = async () => {
    const who = person();
    const { body } = await t.http
      .post('/v1/users')
      .set(t.admin)
      .send({ username: who.username, email: who.email, invite: true })
      .expect(201);
    return { ...who, id: body.id as number };
  };

  it('should send no mail still queued for a user deleted since', async () => {
    const deleted = await invite();
    await waitFor(() => Promise.resolve(smtp.refused === 1), 10_000);

    await t.http.delete(`/v1/users/${deleted.id}`).set(t.admin).expect(200);
    const other = await invite();

    await waitForMail(smtp, other.email);
    await outboxDrained(t, CONSUMERS);
    expect(smtp.mailsTo(deleted.email)).toEqual([]);
  });
});

describe('Account mails, asked for from several client addresses (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  const ATTACKER = '203.0.113.7';
  const VICTIM = '198.51.100.9';
  /** The overall cap of resets to an address: 5 per 15 minutes. */
  const RESET_CAP = 5;
  const RESET_WINDOW_MS = 15 * 60_000;

  beforeAll(async () => {
    ({ smtp, t } = await mailingApp({
      TRUST_PROXY: '1',
      REGISTRATION: 'open',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '999999',
      RATE_LIMIT_ANONYMOUS_PER_HOUR: '999999',
    }));
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const ask = (path: string, email: string, from: string) =>
    t.http.post(`/v1/auth/${path}`).set('X-Forwarded-For', from).send({ email }).expect(202);
  const forgot = (email: string, from: string) => ask('forgot-password', email, from);
  const resend = (email: string, from: string) => ask('resend-verification', email, from);
  const mailsOf = (subject: string) => (email: string) =>
    smtp.mailsTo(email).filter((mail) => mail.parsed.subject === subject);
  const resets = mailsOf('Reset your password');
  const verifications = mailsOf('Confirm your email address');
  /** The messages the consumers have yet to answer, and in how long each is due. */
  const asks = () =>
    t.dataSource.query<{ consumer: string; dueInMs: number }[]>(
      `SELECT consumer, (extract(epoch FROM next_attempt_at - now()) * 1000)::int AS "dueInMs"
         FROM outbox_messages WHERE consumer = ANY($1)`,
      [CONSUMERS],
    );
  const drained = () => outboxDrained(t, CONSUMERS);
  /** Waits until `count` mails of `mails` reached `email`, then until nothing is left to send. */
  async function sent(mails: typeof resets, email: string, count: number) {
    await waitFor(() => Promise.resolve(mails(email).length >= count), 10_000);
    await drained();
    expect(mails(email)).toHaveLength(count);
  }
  /** Resets from as many client addresses as the cap allows: the address's cap is full. */
  async function fillResetCap(email: string) {
    for (let i = 1; i <= RESET_CAP; i++) await forgot(email, `203.0.113.${i}`);
    await sent(resets, email, RESET_CAP);
  }
  /** Waits until one message is left, due in more than a minute: the owed reset. */
  async function owedReset(): Promise<{ consumer: string; dueInMs: number }> {
    const waiting = async () => {
      const left = await asks();
      return left.length === 1 && left[0].dueInMs > 60_000;
    };
    await waitFor(waiting, 10_000);
    return (await asks())[0];
  }
  /** `ms` pass for the mails counted under the address's `scope` cap (and for nothing else). */
  const capAges = (email: string, scope: 'all' | 'all:reset', ms: number) =>
    t.dataSource.query(
      `UPDATE mail_quotas SET sent_at = ARRAY(SELECT t - $3 * interval '1 millisecond' FROM unnest(sent_at) t)
        WHERE address = lower($1) AND scope = $2`,
      [email, scope, ms],
    );
  /** The outbox comes to the owed reset now, whenever it is due. */
  const owedResetDueNow = () =>
    t.dataSource.query(
      `UPDATE outbox_messages SET next_attempt_at = now() WHERE consumer = 'accounts.asks'`,
    );
  /** The reset cap's window passes, and the outbox comes to the owed reset. */
  async function roomComes(email: string) {
    await capAges(email, 'all:reset', RESET_WINDOW_MS);
    await owedResetDueNow();
  }

  it('should mail a person’s reset though another client address spent its own quota for that address', async () => {
    const victim = await createUser(t);
    for (let i = 0; i < 4; i++) await forgot(victim.email, ATTACKER);
    await sent(resets, victim.email, 3);

    await forgot(victim.email, VICTIM);

    await sent(resets, victim.email, 4);
  });

  it('should spend no client address’s quota on a mail the address’s overall cap refuses', async () => {
    const who = person();
    await t.http
      .post('/v1/auth/register')
      .set('X-Forwarded-For', '203.0.113.20')
      .send(who)
      .expect(202);
    // Nine more from three other client addresses, three each: the overall cap of 10 is full.
    for (let i = 0; i < 9; i++) await resend(who.email, `203.0.113.${21 + (i % 3)}`);
    await sent(verifications, who.email, 10);

    await resend(who.email, VICTIM);
    await sent(verifications, who.email, 10);

    // The cap's hour passes for the mails sent, not for the ask refused after them.
    await capAges(who.email, 'all', 3600_000);
    for (let i = 0; i < 3; i++) await resend(who.email, VICTIM);
    await sent(verifications, who.email, 13);
  });

  it('should owe a reset when the address’s overall cap is full, send it within 15 minutes, and join later asks to it', async () => {
    const victim = await createUser(t);
    await fillResetCap(victim.email);

    await forgot(victim.email, VICTIM);
    await forgot(victim.email, '203.0.113.99');

    // One ask waits for room, due within 15 minutes; the later one joined it.
    const owed = await owedReset();
    expect(owed).toEqual({ consumer: 'accounts.asks', dueInMs: expect.any(Number) });
    expect(owed.dueInMs).toBeLessThanOrEqual(RESET_WINDOW_MS);
    expect(resets(victim.email)).toHaveLength(RESET_CAP);

    await roomComes(victim.email);

    await sent(resets, victim.email, RESET_CAP + 1);
  });

  it('should mail an owed reset once its room comes, not before', async () => {
    const victim = await createUser(t);
    await fillResetCap(victim.email);
    await forgot(victim.email, VICTIM);
    const { dueInMs } = await owedReset();

    // The clock moves to 3 s before the room comes, and the outbox comes to the reset early.
    const early = 3000;
    await capAges(victim.email, 'all:reset', dueInMs - early);
    await owedResetDueNow();
    const cameEarly = Date.now();

    await sent(resets, victim.email, RESET_CAP + 1);
    expect(Date.now() - cameEarly).toBeGreaterThan(early - 500);
  });

  it('should send an owed reset that an ask made after the password change joined', async () => {
    const victim = await createUser(t);
    await fillResetCap(victim.email);
    await forgot(victim.email, '203.0.113.99');
    await owedReset();
    await changePassword(t, victim);

    await forgot(victim.email, VICTIM);
    await owedReset();
    await roomComes(victim.email);

    await sent(resets, victim.email, RESET_CAP + 1);
  });

  it.each(CREDENTIAL_CHANGES)(
    'should send no owed reset asked before the %s changed',
    async (_, change) => {
      const victim = await createUser(t);
      await fillResetCap(victim.email);
      await forgot(victim.email, VICTIM);
      await owedReset();

      await change(t, victim);
      await roomComes(victim.email);

      await sent(resets, victim.email, RESET_CAP);
      const [{ unused }] = await t.dataSource.query<{ unused: number }[]>(
        `SELECT count(*)::int AS unused FROM account_tokens WHERE user_id = $1 AND used_at IS NULL`,
        [victim.id],
      );
      expect(unused).toBe(0);
    },
  );
});

// Two instances in one process cannot share PGlite's data directory, and closing one closes
// what they share: these two are made for this test and closed together, after the others.
describe('Unverified sign-ups on several instances (e2e)', () => {
  const env = { REGISTRATION: 'open', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '999999' };

  onServer(
    'should remove each expired sign-up once when several instances sweep at the same time',
    async () => {
      const first = await createTestApp(env);
      const second = await createTestApp(env, { database: first.database });
      try {
        for (let i = 0; i < 6; i++) {
          await first.http.post('/v1/auth/register').send(person()).expect(202);
        }
        // A sign-up's link is written after the answer, its row key-share locked meanwhile: a
        // sweep skips a locked row, so these ones must be free before the sweeps race.
        await outboxDrained(first, CONSUMERS);
        const [{ ids }] = await first.dataSource.query<{ ids: number[] }[]>(
          `WITH aged AS (
           UPDATE users SET created_at = now() - interval '73 hours' WHERE unverified_sign_up
           RETURNING id)
         SELECT array_agg(id) AS ids FROM aged`,
        );
        expect(ids).toHaveLength(6);

        const removed = await Promise.all(
          [first, second].map((app) => app.app.get(SignUpExpiryService).removeExpired()),
        );

        expect(removed[0] + removed[1]).toBe(6);
        const [{ kept, deleted }] = await first.dataSource.query<
          { kept: number; deleted: number }[]
        >(
          `SELECT (SELECT count(*)::int FROM users WHERE id = ANY($1)) AS kept,
                (SELECT count(*)::int FROM audit_events
                  WHERE action = 'user.deleted' AND target_id = ANY($1)) AS deleted`,
          [ids],
        );
        expect({ kept, deleted }).toEqual({ kept: 0, deleted: 6 });
      } finally {
        await second.close();
        await first.close();
      }
    },
  );
});
