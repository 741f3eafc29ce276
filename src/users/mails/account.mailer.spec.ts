import { describe, expect, it, jest } from '@jest/globals';
import { UserStatus } from '../user-status.js';
import { AccountMailer, type AccountMail } from './account.mailer.js';
import type { UserMails } from './user-mails.js';
import type { MailConfig } from '../../config/mail.config.js';
import type { Mail } from '../../mail/mail.js';

const account = (id: number, userStatus: UserStatus = UserStatus.Active) => ({
  id,
  username: `user${id}`,
  userStatus,
});

function setUp() {
  const mails = {
    queue: jest.fn((_userId: number, _to: string, _mail: Mail) => Promise.resolve()),
  };
  const sut = new AccountMailer(
    mails as unknown as UserMails,
    { linkBaseUrl: 'https://x' } as MailConfig,
  );
  return { sut, mails };
}

describe(AccountMailer.name, () => {
  it('should queue each kind under its user, to the address given, with its token in the link of its page', async () => {
    const { sut, mails } = setUp();
    const kinds: [AccountMail, string | undefined][] = [
      ['verification', 'v'],
      ['email-change', 'e'],
      ['password-reset', 'r'],
      ['invitation', 'i'],
      ['registration-attempt', undefined],
      ['email-change-attempt', undefined],
    ];

    for (const [index, [kind, token]] of kinds.entries()) {
      await sut.queue(account(index + 1), kind, `to${index + 1}@example.com`, token);
    }

    expect(
      mails.queue.mock.calls.map(([id, to, sent]) => [id, to, sent.template, sent.links]),
    ).toEqual([
      [1, 'to1@example.com', 'verification', ['https://x/console/verify-email?token=v']],
      [2, 'to2@example.com', 'email-change', ['https://x/console/verify-email?token=e']],
      [3, 'to3@example.com', 'password-reset', ['https://x/console/reset-password?token=r']],
      [4, 'to4@example.com', 'invitation', ['https://x/console/reset-password?token=i']],
      [5, 'to5@example.com', 'registration-attempt', ['https://x/console/reset-password']],
      [6, 'to6@example.com', 'email-change-attempt', ['https://x/console/reset-password']],
    ]);
    expect(mails.queue.mock.calls[4][2].text).toContain('Hello user5,');
    expect(mails.queue.mock.calls[2][2].text).toContain('for 60 minutes');
    expect(mails.queue.mock.calls[3][2].text).toContain('for 7 days');
  });

  it('should greet no one in a mail to an address its account has not verified', async () => {
    const { sut, mails } = setUp();

    await sut.queue(account(1), 'verification', 'a@example.com', 'v');
    await sut.queue(account(2), 'email-change', 'b@example.com', 'e');
    await sut.queue(account(3, UserStatus.Pending), 'password-reset', 'c@example.com', 'r');
    await sut.queue(account(4), 'password-reset', 'd@example.com', 'r');

    expect(mails.queue.mock.calls.map(([, , sent]) => sent.text.split('\n')[0])).toEqual([
      'Hello,',
      'Hello,',
      'Hello,',
      'Hello user4,',
    ]);
  });
});
