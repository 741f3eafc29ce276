import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiKeyExpiryWarnings } from '../../../src/auth/api-key-expiry-warnings.js';
import { MAIL_QUEUE } from '../../../src/mail/mail-queue.js';
import { createUser, type CreatedUser } from '../../support/auth.js';
import { TestSmtpServer } from '../../support/smtp-server.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { outboxDrained, waitFor } from '../../support/wait.js';

/*
 * docs/identity.md, "Expiry and rolling": a key's owner gets one mail when the key comes
 * within 7 days of its end, over SMTP (a real server, started here). The clock is the
 * database's: a key's end is moved towards now, as if time had passed, and the recurring
 * job's run is called as the engine would call it.
 */
const DAY_MS = 86_400_000;
const ENV = { OUTBOX_POLL_INTERVAL_MS: '50', OUTBOX_RETRY_BASE_MS: '10' };
// A second instance needs a database server; the embedded one serves one process.
const onServer = process.env.DATABASE_URL ? it : it.skip;

describe('API key expiry warning (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await TestSmtpServer.start();
    t = await createTestApp({ ...ENV, SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  async function createKey(owner: CreatedUser, name: string, endsInMs?: number) {
    const res = await t.http
      .post('/v1/api-keys')
      .set(owner.headers)
      .send({
        name,
        mode: 'test',
        ...(endsInMs !== undefined && { expiresAt: new Date(Date.now() + endsInMs).toISOString() }),
      })
      .expect(201);
    return res.body as { id: number; prefix: string; expiresAt?: string };
  }

  /** Time passes: the key now ends `endsInMs` from the database's now. */
  async function keyEndsIn(id: number, endsInMs: number): Promise<string> {
    const [[row]] = await t.dataSource.query<[{ expiresAt: string }[], number]>(
      `UPDATE api_keys
          SET expires_at = date_trunc('milliseconds', now()) + make_interval(secs => $2::float8 / 1000)
        WHERE id = $1
      RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiresAt"`,
      [id, endsInMs],
    );
    return row.expiresAt;
  }

  const warn = () => t.app.get(ApiKeyExpiryWarnings).warnExpiring();

  /** The owner's mails once every queued mail has left. */
  async function mailsOf(owner: CreatedUser) {
    await outboxDrained(t, [MAIL_QUEUE]);
    return smtp.mailsTo(owner.email).map(({ parsed }) => ({
      subject: parsed.subject,
      text: parsed.text ?? '',
    }));
  }

  it('should mail the owner once when a key comes within 7 days of its end, never again', async () => {
    const owner = await createUser(t);
    const key = await createKey(owner, 'storefront', 8 * DAY_MS);

    await warn();
    expect(await mailsOf(owner)).toEqual([]);

    const expiresAt = await keyEndsIn(key.id, 7 * DAY_MS - 60_000);
    await warn();

    const mails = await mailsOf(owner);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('Your API key storefront expires soon');
    expect(mails[0].text).toContain(`Hello ${owner.username},`);
    expect(mails[0].text).toContain(`storefront (${key.prefix}…) expires at ${expiresAt} (UTC)`);

    // Later runs, and the key's end moved nearer still, send nothing more.
    await keyEndsIn(key.id, DAY_MS);
    await warn();
    await warn();
    expect(await mailsOf(owner)).toHaveLength(1);
  });

  it('should not mail of a key that never expires, or that has already expired', async () => {
    const owner = await createUser(t);
    await createKey(owner, 'forever');
    const ended = await createKey(owner, 'ended', 30 * DAY_MS);
    await keyEndsIn(ended.id, -1000);

    await warn();

    expect(await mailsOf(owner)).toEqual([]);
  });

  it('should warn a rolled key once, and its successor, a new key, once more', async () => {
    const owner = await createUser(t);
    const key = await createKey(owner, 'short-lived', 3 * DAY_MS);
    await warn();
    expect(await mailsOf(owner)).toHaveLength(1);

    const rolled = await t.http
      .post(`/v1/api-keys/${key.id}/roll`)
      .set(owner.headers)
      .send({ expiresInHours: 24 })
      .expect(201);
    await warn();

    const mails = await mailsOf(owner);
    expect(mails).toHaveLength(2);
    expect(mails[1].text).toContain(`short-lived (${rolled.body.prefix as string}…) expires at`);
    expect(mails[1].text).not.toContain(key.prefix);
  });

  it('should not warn of a key its owner rolled, though the roll brings its end within the week', async () => {
    const owner = await createUser(t);
    const key = await createKey(owner, 'rolled-early', 30 * DAY_MS);
    await t.http.post(`/v1/api-keys/${key.id}/roll`).set(owner.headers).send({}).expect(201);

    await warn();

    expect(await mailsOf(owner)).toEqual([]);
    const list = await t.http.get('/v1/api-keys').set(owner.headers).expect(200);
    expect(list.body.apiKeys).toContainEqual(
      expect.objectContaining({ id: key.id, expiringSoon: true }),
    );
  });

  it('should warn each key exactly once when runs overlap', async () => {
    const owner = await createUser(t);
    const keys = await Promise.all(
      ['one', 'two', 'three'].map((name) => createKey(owner, name, 2 * DAY_MS)),
    );

    await Promise.all([warn(), warn(), warn()]);

    const mails = await mailsOf(owner);
    expect(mails.map((mail) => mail.subject).sort()).toEqual(
      ['one', 'three', 'two'].map((name) => `Your API key ${name} expires soon`),
    );
    for (const key of keys) {
      expect(mails.filter((mail) => mail.text.includes(key.prefix))).toHaveLength(1);
    }
  });

  onServer(
    'should warn each key once across instances, and not again after a restart',
    async () => {
      const owner = await createUser(t);
      await Promise.all(['north', 'south'].map((name) => createKey(owner, name, 5 * DAY_MS)));
      const second = await createTestApp(
        { ...ENV, SMTP_URL: smtp.url },
        {
          database: t.database,
          signIn: false,
        },
      );
      try {
        await Promise.all([warn(), second.app.get(ApiKeyExpiryWarnings).warnExpiring()]);
      } finally {
        await second.close();
      }
      expect(await mailsOf(owner)).toHaveLength(2);

      const restarted = await createTestApp(
        { ...ENV, SMTP_URL: smtp.url },
        {
          database: t.database,
          signIn: false,
        },
      );
      try {
        await restarted.app.get(ApiKeyExpiryWarnings).warnExpiring();
      } finally {
        await restarted.close();
      }
      expect(await mailsOf(owner)).toHaveLength(2);
    },
  );
});

describe('API key expiry warning of an owner deleted since (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    // The warning's first delivery is refused, and its retry is a minute away: the
    // deletion comes while it is still queued.
    smtp = await TestSmtpServer.start({ refuseFirst: { count: 1, code: 451 } });
    t = await createTestApp({ ...ENV, OUTBOX_RETRY_BASE_MS: '60000', SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const queuedMails = async (ownerId: number) => {
    const [{ count }] = await t.dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM outbox_messages
        WHERE consumer = $1 AND subject = $2 AND failed_at IS NULL`,
      [MAIL_QUEUE, `api_key_owner:${ownerId}`],
    );
    return count;
  };

  it('should cancel the warning still queued to a key’s owner when the owner is deleted', async () => {
    const owner = await createUser(t);
    await t.http
      .post('/v1/api-keys')
      .set(owner.headers)
      .send({
        name: 'doomed',
        mode: 'test',
        expiresAt: new Date(Date.now() + 3 * DAY_MS).toISOString(),
      })
      .expect(201);
    await t.app.get(ApiKeyExpiryWarnings).warnExpiring();
    await waitFor(() => Promise.resolve(smtp.refused === 1), 10_000);
    expect(await queuedMails(owner.id)).toBe(1);

    await t.http.delete(`/v1/users/${owner.id}`).set(t.admin).expect(200);

    expect(await queuedMails(owner.id)).toBe(0);
    expect(smtp.mailsTo(owner.email)).toEqual([]);
  });
});
