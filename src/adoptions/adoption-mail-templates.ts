import { composeMail, greetingOf } from '../mail/mail-layout.js';
import type { Mail } from '../mail/mail.js';

/** What every adoption mail names: the adoption, its pet, and the adopter it greets. */
export interface AdoptionMailFacts {
  adoptionId: number;
  petName: string;
  adopterUsername: string;
}

// Times are written as the API writes them, ISO 8601 in UTC, and said to be so.
const utc = (at: Date) => `${at.toISOString()} (UTC)`;

const adoption = (facts: AdoptionMailFacts) => `adoption #${facts.adoptionId} of ${facts.petName}`;

/** Sent when staff approve the request: the pet is held again from now. */
export function adoptionApprovedMail(facts: AdoptionMailFacts, holdExpiresAt: Date): Mail {
  return composeMail({
    template: 'adoption-approved',
    subject: `Your adoption of ${facts.petName} was approved`,
    greeting: greetingOf(facts.adopterUsername),
    paragraphs: [
      `Good news: your ${adoption(facts)} was approved.`,
      `${facts.petName} is held for you until ${utc(holdExpiresAt)}. The shop will be in touch to complete the adoption before then.`,
    ],
  });
}

/** Sent when staff complete the adoption: the pet is the adopter's. */
export function adoptionCompletedMail(facts: AdoptionMailFacts): Mail {
  return composeMail({
    template: 'adoption-completed',
    subject: `Your adoption of ${facts.petName} is complete`,
    greeting: greetingOf(facts.adopterUsername),
    paragraphs: [
      `Your ${adoption(facts)} is complete: ${facts.petName} is yours.`,
      'Thank you for giving a pet a home.',
    ],
  });
}

/** Sent when staff reject the request, with their reason when they gave one. */
export function adoptionRejectedMail(facts: AdoptionMailFacts, reason: string | null): Mail {
  return composeMail({
    template: 'adoption-rejected',
    subject: `Your adoption of ${facts.petName} was not approved`,
    greeting: greetingOf(facts.adopterUsername),
    paragraphs: [
      `We are sorry: your ${adoption(facts)} was not approved.`,
      ...(reason ? [`The reason given: ${reason}`] : []),
      `${facts.petName} is no longer held for you.`,
    ],
  });
}

/** Sent when the hold ended before the adoption was decided. */
export function adoptionExpiredMail(facts: AdoptionMailFacts): Mail {
  return composeMail({
    template: 'adoption-expired',
    subject: `Your hold on ${facts.petName} has ended`,
    greeting: greetingOf(facts.adopterUsername),
    paragraphs: [
      `The hold of your ${adoption(facts)} ended before the adoption was completed, so it has expired and ${facts.petName} is no longer held for you.`,
      'If you still wish to adopt, you may ask again while the pet is available.',
    ],
  });
}

/** Sent a day before a hold longer than a day ends, while the adoption is still open. */
export function adoptionHoldReminderMail(facts: AdoptionMailFacts, holdExpiresAt: Date): Mail {
  return composeMail({
    template: 'adoption-hold-reminder',
    subject: `Your hold on ${facts.petName} ends in a day`,
    greeting: greetingOf(facts.adopterUsername),
    paragraphs: [
      `${facts.petName} is held for your ${adoption(facts)} until ${utc(holdExpiresAt)}.`,
      'If the adoption is not completed by then, the hold ends and the adoption expires. Contact the shop if you need more time.',
    ],
  });
}
