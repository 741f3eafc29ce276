import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MAIL_QUEUE, mailJob } from '../../../src/mail/mail-queue.js';
import { changeOwnPassword, createUser, type CreatedUser } from '../../support/auth.js';
import { TestSmtpServer } from '../../support/smtp-server.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { outboxDrained, waitFor } from '../../support/wait.js';

/*
 * docs/mail.md: "your password was changed" goes after the change commits, from the outbox,
 * over SMTP (a real server, started here), retried, and never twice for one change.
 */
const MAIL_FROM = 'Pet store tests <shop@example.com>';
const FAST_OUTBOX = { OUTBOX_RETRY_BASE_MS: '10', OUTBOX_POLL_INTERVAL_MS: '50' };
const CONSUMER = MAIL_QUEUE;
const NEW_PASSWORD = 'a brand new password';

const changePassword = (t: TestApp, user: CreatedUser) => changeOwnPassword(t, user, NEW_PASSWORD);

const drained = (t: TestApp) => outboxDrained(t, [CONSUMER]);

/** petstore_mails_total of the password-changed template, by outcome. */
async function mailsCounted(t: TestApp): Promise<{ sent: number; failed: number }> {
  const metrics = (await t.http.get('/metrics').expect(200)).text;
  const count = (outcome: string) =>
    Number(
      new RegExp(
        `^petstore_mails_total\\{template="password-changed",outcome="${outcome}"\\} (\\d+)$`,
        'm',
      ).exec(metrics)?.[1] ?? 0,
    );
  return { sent: count('sent'), failed: count('failed') };
}

describe('Mail over SMTP (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await TestSmtpServer.start();
    t = await createTestApp({
      ...FAST_OUTBOX,
      SMTP_URL: smtp.url,
      MAIL_FROM,
      PUBLIC_BASE_URL: 'https://shop.example.com',
      METRICS_ENABLED: 'true',
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('should send one "password changed" mail with text and HTML parts, from MAIL_FROM to the user', async () => {
    const user = await createUser(t);

    await changePassword(t, user);

    await waitFor(() => Promise.resolve(smtp.mailsTo(user.email).length > 0), 10_000);
    await drained(t);
    const mails = smtp.mailsTo(user.email);
    expect(mails).toHaveLength(1);
    const [{ envelope, parsed }] = mails;
    expect(envelope).toEqual({ from: 'shop@example.com', to: [user.email] });
    expect(parsed.from?.value).toEqual([{ name: 'Pet store tests', address: 'shop@example.com' }]);
    expect(parsed.subject).toBe('Your password was changed');
    expect(parsed.text).toContain(`Hello ${user.username},`);
    expect(parsed.text).toContain('https://shop.example.com/console/reset-password');
    expect(parsed.html).toContain(`Hello ${user.username},`);
    expect(parsed.html).toContain('href="https://shop.example.com/console/reset-password"');
  });

  it('should send nothing for an update that leaves the password as it was', async () => {
    const user = await createUser(t);

    await t.http
      .put(`/v1/users/${user.id}`)
      .set(t.admin)
      .send({ firstName: 'Unchanged password' })
      .expect(200);

    await drained(t);
    expect(smtp.mailsTo(user.email)).toEqual([]);
  });

  it('should not send the mail again when the outbox hands the same event over again', async () => {
    const user = await createUser(t);
    await changePassword(t, user);
    await waitFor(() => Promise.resolve(smtp.mailsTo(user.email).length > 0), 10_000);
    await drained(t);
    const [sent] = await t.dataSource.query<{ id: number }[]>(
      `SELECT outbox_message_id AS id FROM sent_mails WHERE template = 'password-changed'
        ORDER BY sent_at DESC LIMIT 1`,
    );

    // The job back: a worker that sent the mail and died before deleting it.
    const job = mailJob(`user:${user.id}`, user.email, {
      template: 'password-changed',
      subject: 'S',
      text: 'T\n',
      html: '<p>T</p>',
      links: [],
    });
    await t.dataSource.query(
      `INSERT INTO outbox_messages (id, consumer, subject, event_type, event)
       VALUES ($1, $2, $3, $4, $5)`,
      [sent.id, CONSUMER, job.subject, job.type, JSON.stringify(job)],
    );

    await drained(t);
    expect(smtp.mailsTo(user.email)).toHaveLength(1);
  });

  it('should count each mail sent by template', async () => {
    const before = await mailsCounted(t);
    const user = await createUser(t);

    await changePassword(t, user);

    await waitFor(async () => (await mailsCounted(t)).sent === before.sent + 1, 10_000);
    expect((await mailsCounted(t)).failed).toBe(before.failed);
  });
});

describe('Mail over SMTP, the server refusing at first (e2e)', () => {
  const REFUSALS = 3;
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await TestSmtpServer.start({ refuseFirst: { count: REFUSALS, code: 451 } });
    t = await createTestApp({
      ...FAST_OUTBOX,
      // Fewer attempts than refusals: a mail is retried for 24 h whatever this says.
      OUTBOX_MAX_ATTEMPTS: '1',
      SMTP_URL: smtp.url,
      METRICS_ENABLED: 'true',
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('should retry through the outbox until the server accepts, and deliver exactly one mail', async () => {
    const user = await createUser(t);

    await changePassword(t, user);

    await waitFor(() => Promise.resolve(smtp.mailsTo(user.email).length > 0), 10_000);
    await drained(t);
    expect(smtp.refused).toBe(REFUSALS);
    expect(smtp.mailsTo(user.email)).toHaveLength(1);
    expect(await mailsCounted(t)).toEqual({ sent: 1, failed: REFUSALS });
  });
});
