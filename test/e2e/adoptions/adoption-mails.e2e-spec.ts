import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HOLD_REMINDER_QUEUE } from '../../../src/adoptions/adoption-mails.js';
import { HOLD_EXPIRY_QUEUE } from '../../../src/adoptions/adoptions.service.js';
import { MAIL_QUEUE } from '../../../src/mail/mail-queue.js';
import { createUser, type CreatedUser } from '../../support/auth.js';
import { createPet } from '../../support/pets.js';
import { refuseInserts, REFUSED } from '../../support/refused-inserts.js';
import { TestSmtpServer } from '../../support/smtp-server.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { expectInternalError } from '../../support/test-logs.js';
import { waitFor } from '../../support/wait.js';

/*
 * docs/adoptions.md, "Mails": the adopter gets one mail on approve, complete, reject and the
 * hold's expiry, and a reminder a day before a hold of more than a day ends, over SMTP (a real
 * server, started here). The clock is the queue's: a job is made due by moving its time.
 */
const HOLD_MINUTES = 60;
const CONSUMERS = [MAIL_QUEUE, HOLD_EXPIRY_QUEUE, HOLD_REMINDER_QUEUE];

describe('Adoption mails (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await TestSmtpServer.start();
    t = await createTestApp({
      ADOPTION_HOLD_MINUTES: String(HOLD_MINUTES),
      OUTBOX_POLL_INTERVAL_MS: '50',
      OUTBOX_RETRY_BASE_MS: '10',
      SMTP_URL: smtp.url,
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const move = (id: number, name: string, body?: object) =>
    t.http
      .post(`/v1/adoptions/${id}/${name}`)
      .set(t.user)
      .send(body ?? {})
      .expect(200);

  /** A new customer's request for a new pet. */
  async function requested(): Promise<{ id: number; petName: string; adopter: CreatedUser }> {
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);
    const res = await t.http.post('/v1/adoptions').set(adopter.headers).send({ petId }).expect(201);
    return { id: res.body.id as number, petName: res.body.pet.name as string, adopter };
  }

  /** No job of the queues is due: what was due is done (holds' later jobs wait their time). */
  const dueDone = () =>
    waitFor(async () => {
      const [{ count }] = await t.dataSource.query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM outbox_messages
          WHERE consumer = ANY($1) AND failed_at IS NULL AND next_attempt_at <= now()`,
        [CONSUMERS],
      );
      return count === 0;
    }, 10_000);

  /** Every mail the adopter got once the due jobs are done. */
  async function mailsOf(adopter: CreatedUser) {
    await dueDone();
    return smtp.mailsTo(adopter.email).map(({ parsed }) => ({
      subject: parsed.subject,
      text: parsed.text ?? '',
      html: typeof parsed.html === 'string' ? parsed.html : '',
    }));
  }

  const reminders = async (id: number) => {
    const rows = await t.dataSource.query<{ holdExpiresAt: string; due: string }[]>(
      `SELECT event->>'holdExpiresAt' AS "holdExpiresAt",
              to_char(next_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS due
         FROM outbox_messages WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2
        ORDER BY id`,
      [HOLD_REMINDER_QUEUE, id],
    );
    return rows;
  };

  /** The clock reaches a day before the hold's end: the adoption's reminders come due. */
  const reminderComesDue = (id: number) =>
    t.dataSource.query(
      `UPDATE outbox_messages SET next_attempt_at = now()
        WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2`,
      [HOLD_REMINDER_QUEUE, id],
    );

  it('should mail the adopter once when the request is approved, with the hold in UTC', async () => {
    const { id, petName, adopter } = await requested();

    const approved = await move(id, 'approve');

    const mails = await mailsOf(adopter);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe(`Your adoption of ${petName} was approved`);
    expect(mails[0].text).toContain(`Hello ${adopter.username},`);
    expect(mails[0].text).toContain(`adoption #${id} of ${petName}`);
    expect(mails[0].text).toContain(`until ${approved.body.holdExpiresAt} (UTC)`);
    expect(mails[0].html).toContain(`adoption #${id} of ${petName}`);
  });

  it('should mail the adopter once when the adoption is completed', async () => {
    const { id, petName, adopter } = await requested();
    await move(id, 'approve');
    await waitFor(() => Promise.resolve(smtp.mailsTo(adopter.email).length === 1), 10_000);

    await move(id, 'complete');

    const mails = await mailsOf(adopter);
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Your adoption of ${petName} was approved`,
      `Your adoption of ${petName} is complete`,
    ]);
    expect(mails[1].text).toContain(`adoption #${id} of ${petName} is complete`);
  });

  it('should write a completion’s mail and audit entry with it, and none of the three when the entry is refused', async () => {
    const { id, petName, adopter } = await requested();
    await move(id, 'approve');
    const approvedMail = `Your adoption of ${petName} was approved`;
    /** The adoption's audit entries, newest first. */
    const audited = async () => {
      const res = await t.http
        .get('/v1/audit-events')
        .query({ targetType: 'adoption', targetId: id })
        .set(t.admin)
        .expect(200);
      return (res.body.auditEvents as { action: string }[]).map((entry) => entry.action);
    };

    const acceptEntries = await refuseInserts(t.dataSource, 'audit_events');
    try {
      await expectInternalError(
        await t.http.post(`/v1/adoptions/${id}/complete`).set(t.user),
        REFUSED,
      );
    } finally {
      await acceptEntries();
    }

    const adoption = await t.http.get(`/v1/adoptions/${id}`).set(t.user).expect(200);
    expect(adoption.body).toMatchObject({ status: 'approved', pet: { status: 'pending' } });
    expect((await mailsOf(adopter)).map((mail) => mail.subject)).toEqual([approvedMail]);
    expect(await audited()).toEqual(['adoption.approve']);

    await move(id, 'complete');

    expect((await mailsOf(adopter)).map((mail) => mail.subject)).toEqual([
      approvedMail,
      `Your adoption of ${petName} is complete`,
    ]);
    expect(await audited()).toEqual(['adoption.complete', 'adoption.approve']);
  });

  it('should mail the adopter once when the request is rejected, with the reason', async () => {
    const { id, petName, adopter } = await requested();

    await move(id, 'reject', { reason: 'The pet needs a garden' });

    const mails = await mailsOf(adopter);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe(`Your adoption of ${petName} was not approved`);
    expect(mails[0].text).toContain(`adoption #${id} of ${petName} was not approved`);
    expect(mails[0].text).toContain('The reason given: The pet needs a garden');
  });

  it('should mail the adopter once when the hold passes and the adoption expires', async () => {
    const { id, petName, adopter } = await requested();

    // The clock moves past the hold: the adoption's hold and its job, as if time had passed.
    const hold = new Date(Date.now() - 1000).toISOString();
    await t.dataSource.transaction(async (manager) => {
      await manager.query('UPDATE adoptions SET hold_expires_at = $2 WHERE id = $1', [id, hold]);
      await manager.query(
        `UPDATE outbox_messages
            SET next_attempt_at = now(),
                event = jsonb_set(event, '{holdExpiresAt}', to_jsonb($3::text))
          WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2`,
        [HOLD_EXPIRY_QUEUE, id, hold],
      );
    });

    await waitFor(async () => {
      const res = await t.http.get(`/v1/adoptions/${id}`).set(t.user).expect(200);
      return res.body.status === 'expired';
    });
    const mails = await mailsOf(adopter);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe(`Your hold on ${petName} has ended`);
    expect(mails[0].text).toContain(`adoption #${id} of ${petName}`);
  });

  it('should mail nothing for a request, an extension or a cancellation', async () => {
    const { id, adopter } = await requested();

    await move(id, 'extend', { hours: 2 });
    await move(id, 'cancel');

    expect(await mailsOf(adopter)).toEqual([]);
  });

  it('should queue no reminder for a hold of a day or less', async () => {
    const { id, adopter } = await requested();

    // From about now, the hold ends a little less than 24 h later.
    await move(id, 'extend', { hours: 23 });

    expect(await reminders(id)).toEqual([]);
    expect(await mailsOf(adopter)).toEqual([]);
  });

  it('should remind the adopter a day before a hold of more than a day ends', async () => {
    const { id, petName, adopter } = await requested();

    const extended = await move(id, 'extend', { hours: 48 });

    const holdExpiresAt = extended.body.holdExpiresAt as string;
    expect(await reminders(id)).toEqual([
      {
        holdExpiresAt,
        due: new Date(Date.parse(holdExpiresAt) - 24 * 3_600_000).toISOString(),
      },
    ]);
    await reminderComesDue(id);
    const mails = await mailsOf(adopter);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe(`Your hold on ${petName} ends in a day`);
    expect(mails[0].text).toContain(`adoption #${id} of ${petName} until ${holdExpiresAt} (UTC)`);
  });

  it('should not remind of a hold moved since, nor of an adoption decided since', async () => {
    const moved = await requested();
    await move(moved.id, 'extend', { hours: 48 });
    await move(moved.id, 'extend', { hours: 1 });
    const decided = await requested();
    await move(decided.id, 'extend', { hours: 48 });
    await move(decided.id, 'cancel');

    // The first hold's reminder comes due: that hold is no longer the adoption's.
    await t.dataSource.query(
      `UPDATE outbox_messages SET next_attempt_at = now()
        WHERE id = (SELECT min(id) FROM outbox_messages
                     WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2)`,
      [HOLD_REMINDER_QUEUE, moved.id],
    );
    await reminderComesDue(decided.id);

    await waitFor(
      async () =>
        (await reminders(moved.id)).length === 1 && (await reminders(decided.id)).length === 0,
    );
    expect(await mailsOf(moved.adopter)).toEqual([]);
    expect(await mailsOf(decided.adopter)).toEqual([]);
  });
});

describe('Adoption mails of an adopter deleted since (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    // The first mail is refused, and its retry is a minute away: the deletion comes first.
    smtp = await TestSmtpServer.start({ refuseFirst: { count: 1, code: 451 } });
    t = await createTestApp({
      OUTBOX_POLL_INTERVAL_MS: '50',
      OUTBOX_RETRY_BASE_MS: '60000',
      SMTP_URL: smtp.url,
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const queuedMails = async (adopterId: number) => {
    const [{ count }] = await t.dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM outbox_messages
        WHERE consumer = $1 AND subject = $2 AND failed_at IS NULL`,
      [MAIL_QUEUE, `adopter:${adopterId}`],
    );
    return count;
  };

  it('should cancel the mails still queued to an adopter when it is deleted', async () => {
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);
    const { body } = await t.http
      .post('/v1/adoptions')
      .set(adopter.headers)
      .send({ petId })
      .expect(201);
    await t.http.post(`/v1/adoptions/${body.id}/reject`).set(t.user).expect(200);
    await waitFor(() => Promise.resolve(smtp.refused === 1), 10_000);
    expect(await queuedMails(adopter.id)).toBe(1);

    await t.http.delete(`/v1/users/${adopter.id}`).set(t.admin).expect(200);

    expect(await queuedMails(adopter.id)).toBe(0);
    expect(smtp.mailsTo(adopter.email)).toEqual([]);
  });
});
