import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../database/transactions.js';
import { EachJobHandler, OnDomainEvent } from '../events/event-handlers.decorator.js';
import { Jobs } from '../events/jobs.js';
import { MAIL_QUEUE, mailJob } from '../mail/mail-queue.js';
import type { Mail } from '../mail/mail.js';
import type { UserDeleted } from '../users/user-events.js';
import { adoptionSubject, type AdoptionEvent } from './adoption-events.js';
import {
  adoptionApprovedMail,
  adoptionCompletedMail,
  adoptionExpiredMail,
  adoptionHoldReminderMail,
  adoptionRejectedMail,
  type AdoptionMailFacts,
} from './adoption-mail-templates.js';
import { isOpen } from './adoption-status.js';
import { AdoptionsRepository } from './adoptions.repository.js';

/** The queue of the reminders a day before a long hold ends (docs/jobs.md); kept in the rows. */
export const HOLD_REMINDER_QUEUE = 'adoptions.hold-reminder';

const DAY_MS = 24 * 60 * 60 * 1000;

// Reminders running at once on an instance, each holding a pooled connection meanwhile.
const HOLD_REMINDER_CONCURRENCY = 2;

/** The reminder of one hold: it does nothing once the adoption is decided or its hold moved. */
interface HoldReminder {
  type: 'adoption.hold_reminder';
  subject: string;
  adoptionId: number;
  holdExpiresAt: string;
}

// An adopter's mails leave in order, and are cancelled with the adopter.
const mailSubjectOf = (adopterId: number) => `adopter:${adopterId}`;

/**
 * The adopter's mails (docs/adoptions.md, "Mails"): one for each move that decides for it
 * (approve, complete, reject, and the hold's expiry), rendered and queued in the move's
 * transaction, from its event (the expiries', from their batch's events), and a reminder a
 * day before a hold longer than a day ends, queued with the hold and mailed only if that
 * hold is still the open adoption's then.
 */
@Injectable()
export class AdoptionMails {
  constructor(
    private readonly adoptions: AdoptionsRepository,
    private readonly jobs: Jobs,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  @OnDomainEvent('adoption.approved', 'adoption.completed', 'adoption.rejected')
  async onDecided(event: AdoptionEvent): Promise<void> {
    const { adopterId } = event.adoption;
    const facts = factsOf(event);
    // An adoption outlives its deleted adopter: there is no one to mail.
    if (adopterId === null || !facts) return;
    const mail = mailOfDecision(event, facts);
    if (mail) await this.queue(adopterId, mail);
  }

  /**
   * In the expiries' transaction, for the batch of holds it expired: their adopters' mails,
   * queued in one statement, each to its adopter's account (read when the mail leaves).
   */
  async onExpired(events: AdoptionEvent[]): Promise<void> {
    const mails = events.flatMap((event) => {
      const { adopterId } = event.adoption;
      const facts = factsOf(event);
      if (adopterId === null || !facts) return [];
      return [mailJob(mailSubjectOf(adopterId), { userId: adopterId }, adoptionExpiredMail(facts))];
    });
    if (mails.length > 0) await this.jobs.enqueueAll(MAIL_QUEUE, mails);
  }

  /** Every new hold: its reminder, due a day before it ends, when it lasts more than a day. */
  @OnDomainEvent('adoption.requested', 'adoption.approved', 'adoption.extended')
  async onNewHold({ adoption }: AdoptionEvent): Promise<void> {
    if (adoption.holdExpiresAt === null) return;
    const endsAt = Date.parse(adoption.holdExpiresAt);
    // Measured from now, which comes after the hold was set: a hold of exactly a day (the
    // request's row is stamped at its transaction's start, earlier) gets no reminder.
    if (endsAt - Date.now() <= DAY_MS) return;
    const job: HoldReminder = {
      type: 'adoption.hold_reminder',
      subject: adoptionSubject(adoption.id),
      adoptionId: adoption.id,
      holdExpiresAt: adoption.holdExpiresAt,
    };
    await this.jobs.enqueue(HOLD_REMINDER_QUEUE, job, { runAt: new Date(endsAt - DAY_MS) });
  }

  /**
   * A reminder in a transaction of its own, under the adoption's lock: mailed only while the
   * adoption is open with the hold it was queued for. Retried until that hold would end. In a
   * lane of its own, as the expiries: many at once go several at a time.
   */
  @EachJobHandler(HOLD_REMINDER_QUEUE, {
    concurrency: HOLD_REMINDER_CONCURRENCY,
    retryForMs: DAY_MS,
  })
  async remind(job: HoldReminder): Promise<void> {
    await this.txHost.withTransaction(async () => {
      if (!(await this.adoptions.lock(job.adoptionId))) return;
      const row = await this.adoptions.findById(job.adoptionId);
      if (!row || !isOpen(row.status) || !row.holdExpiresAt) return;
      if (row.holdExpiresAt.toISOString() !== job.holdExpiresAt) return;
      // A deleted adopter's open adoptions were cancelled with it: this guards the types.
      if (row.adopterId === null || row.adopterUsername === null) return;
      const facts = {
        adoptionId: row.id,
        petName: row.petName,
        adopterUsername: row.adopterUsername,
      };
      await this.queue(row.adopterId, adoptionHoldReminderMail(facts, row.holdExpiresAt));
    });
  }

  /** In the deletion's transaction: there is no one to mail any more. */
  @OnDomainEvent('user.deleted')
  async cancelOfDeleted(event: UserDeleted): Promise<void> {
    await this.jobs.cancel(MAIL_QUEUE, mailSubjectOf(event.userId));
  }

  /** To the adopter's account: the sender reads its address, the move reads none. */
  private async queue(adopterId: number, mail: Mail): Promise<void> {
    await this.jobs.enqueue(
      MAIL_QUEUE,
      mailJob(mailSubjectOf(adopterId), { userId: adopterId }, mail),
    );
  }
}

const factsOf = ({ adoptionId, body }: AdoptionEvent): AdoptionMailFacts | undefined =>
  body.adopter && { adoptionId, petName: body.pet.name, adopterUsername: body.adopter.username };

/** The adopter's mail of a move, if it has one; an approval always carries its new hold. */
function mailOfDecision(event: AdoptionEvent, facts: AdoptionMailFacts): Mail | undefined {
  const { holdExpiresAt, reason } = event.adoption;
  switch (event.type) {
    case 'adoption.approved':
      return holdExpiresAt ? adoptionApprovedMail(facts, new Date(holdExpiresAt)) : undefined;
    case 'adoption.completed':
      return adoptionCompletedMail(facts);
    case 'adoption.rejected':
      return adoptionRejectedMail(facts, reason);
    case 'adoption.requested':
    case 'adoption.expired':
    case 'adoption.cancelled':
    case 'adoption.returned':
    case 'adoption.extended':
      return undefined;
  }
}
