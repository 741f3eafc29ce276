import { describe, expect, it, jest } from '@jest/globals';
import type { AccountMail, AccountMailRequested } from '../accounts/account-events.js';
import { UserStatus } from '../user-status.js';
import { userNotFound, type UsersService } from '../users.service.js';
import { AccountMailer } from './account.mailer.js';
import type { ConsolePage, MailService } from '../../mail/mail.service.js';
import type { Mail } from '../../mail/mail.js';

const requested = (userId: number, mail: AccountMail, token?: string): AccountMailRequested => ({
  type: 'account.mail_requested',
  subject: `user:${userId}`,
  userId,
  mail,
  to: `to${userId}@example.com`,
  ...(token === undefined ? {} : { token }),
});

function setUp({
  refusedFor = [] as string[],
  deleted = [] as number[],
  pending = [] as number[],
} = {}) {
  const users = {
    findOne: jest.fn((id: number) =>
      deleted.includes(id)
        ? Promise.reject(userNotFound(id))
        : Promise.resolve({
            id,
            username: `user${id}`,
            email: `user${id}@example.com`,
            userStatus: pending.includes(id) ? UserStatus.Pending : UserStatus.Active,
          }),
    ),
  };
  const mail = {
    consoleLink: jest.fn((page: ConsolePage, token?: string) =>
      token === undefined ? `https://x/${page}` : `https://x/${page}?token=${token}`,
    ),
    deliverOnce: jest.fn((_id: number, to: string, _mail: Mail) =>
      refusedFor.includes(to) ? Promise.reject(new Error('451 try later')) : Promise.resolve(),
    ),
  };
  const sut = new AccountMailer(users as unknown as UsersService, mail as unknown as MailService);
  return { sut, mail };
}

describe(AccountMailer.name, () => {
  it('should mail each kind to the event’s address, with its token in the link of its page', async () => {
    const { sut, mail } = setUp();

    await sut.onMailRequested(
      [
        requested(1, 'verification', 'v'),
        requested(2, 'email-change', 'e'),
        requested(3, 'password-reset', 'r'),
        requested(4, 'invitation', 'i'),
        requested(5, 'registration-attempt'),
        requested(6, 'email-change-attempt'),
      ],
      [11, 12, 13, 14, 15, 16],
    );

    expect(
      mail.deliverOnce.mock.calls.map(([id, to, sent]) => [id, to, sent.template, sent.links]),
    ).toEqual([
      [11, 'to1@example.com', 'verification', ['https://x/verify-email?token=v']],
      [12, 'to2@example.com', 'email-change', ['https://x/verify-email?token=e']],
      [13, 'to3@example.com', 'password-reset', ['https://x/reset-password?token=r']],
      [14, 'to4@example.com', 'invitation', ['https://x/reset-password?token=i']],
      [15, 'to5@example.com', 'registration-attempt', ['https://x/reset-password']],
      [16, 'to6@example.com', 'email-change-attempt', ['https://x/reset-password']],
    ]);
    expect(mail.deliverOnce.mock.calls[4][2].text).toContain('Hello user5,');
    expect(mail.deliverOnce.mock.calls[2][2].text).toContain('for 60 minutes');
    expect(mail.deliverOnce.mock.calls[3][2].text).toContain('for 7 days');
  });

  it('should greet no one in a mail to an address its account has not verified', async () => {
    const { sut, mail } = setUp({ pending: [3] });

    await sut.onMailRequested(
      [
        requested(1, 'verification', 'v'),
        requested(2, 'email-change', 'e'),
        requested(3, 'password-reset', 'r'),
        requested(4, 'password-reset', 'r'),
      ],
      [11, 12, 13, 14],
    );

    expect(mail.deliverOnce.mock.calls.map(([, , sent]) => sent.text.split('\n')[0])).toEqual([
      'Hello,',
      'Hello,',
      'Hello,',
      'Hello user4,',
    ]);
  });

  it('should try every mail of the batch, then throw naming those not sent', async () => {
    const { sut, mail } = setUp({ refusedFor: ['to1@example.com'] });

    await expect(
      sut.onMailRequested(
        [requested(1, 'verification', 'a'), requested(2, 'verification', 'b')],
        [1, 2],
      ),
    ).rejects.toThrow('1 account mail(s) not sent: user:1 (verification): 451 try later');
    expect(mail.deliverOnce).toHaveBeenCalledTimes(2);
  });

  it('should send nothing for a user deleted since, and not fail', async () => {
    const { sut, mail } = setUp({ deleted: [1] });

    await sut.onMailRequested([requested(1, 'password-reset', 'r')], [1]);

    expect(mail.deliverOnce).not.toHaveBeenCalled();
  });
});
