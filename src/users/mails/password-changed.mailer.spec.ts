import { describe, expect, it, jest } from '@jest/globals';
import { userSnapshot } from '../../../test/support/user-snapshot.js';
import type { UserUpdated } from '../user-events.js';
import type { MailConfig } from '../../config/mail.config.js';
import { PasswordChangedMailer } from './password-changed.mailer.js';
import type { UserMails } from './user-mails.js';
import type { Mail } from '../../mail/mail.js';

const updated = (userId: number, fields: UserUpdated['fields']): UserUpdated => ({
  type: 'user.updated',
  subject: `user:${userId}`,
  userId,
  fields,
  origin: 'edit',
  before: userSnapshot(userId),
  after: { ...userSnapshot(userId), username: `renamed${userId}`, email: `new${userId}@x.org` },
});

function setUp() {
  const mails = {
    queue: jest.fn((_userId: number, _to: string, _mail: Mail) => Promise.resolve()),
  };
  const sut = new PasswordChangedMailer(
    mails as unknown as UserMails,
    { linkBaseUrl: 'http://localhost:3000' } as MailConfig,
  );
  return { sut, mails };
}

describe(PasswordChangedMailer.name, () => {
  it('should queue a mail only for an update that wrote the password, to the user as it became', async () => {
    const { sut, mails } = setUp();

    for (const event of [
      updated(1, ['passwordHash', 'tokensValidAfter']),
      updated(2, ['email']),
      updated(3, ['passwordHash']),
    ]) {
      await sut.onUserUpdated(event);
    }

    expect(mails.queue.mock.calls.map(([id, to, sent]) => [id, to, sent.template])).toEqual([
      [1, 'new1@x.org', 'password-changed'],
      [3, 'new3@x.org', 'password-changed'],
    ]);
    expect(mails.queue.mock.calls[0][2].text).toContain('Hello renamed1,');
  });
});
