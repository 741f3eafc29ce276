import { composeMail, greetingOf } from '../mail/mail-layout.js';
import type { Mail } from '../mail/mail.js';

/** What the expiry warning names: the key, as its owner sees it in the list, and the owner. */
export interface ApiKeyMailFacts {
  username: string;
  keyName: string;
  prefix: string;
  expiresAt: Date;
}

/** Sent once, when a key that expires is a week or less from its end. */
export function apiKeyExpiringMail(facts: ApiKeyMailFacts): Mail {
  return composeMail({
    template: 'api-key-expiring',
    subject: `Your API key ${facts.keyName} expires soon`,
    greeting: greetingOf(facts.username),
    paragraphs: [
      `Your API key ${facts.keyName} (${facts.prefix}…) expires at ${facts.expiresAt.toISOString()} (UTC). After that, requests made with it are refused.`,
      'To replace it without downtime, roll it on the API keys page of the console (or POST /v1/api-keys/{id}/roll): you get a new key at once, and the old one keeps working for the grace period you choose.',
    ],
  });
}
