import { describe, expect, it, jest } from '@jest/globals';
import { userSnapshot } from '../../../test/support/user-snapshot.js';
import { userNotFound, type UsersService } from '../users.service.js';
import type { UserUpdated } from '../user-events.js';
import type { MailService } from '../../mail/mail.service.js';
import { PasswordChangedMailer } from './password-changed.mailer.js';
import type { Mail } from '../../mail/mail.js';

const updated = (userId: number, fields: UserUpdated['fields']): UserUpdated => ({
  type: 'user.updated',
  subject: `user:${userId}`,
  userId,
  fields,
  origin: 'edit',
  before: userSnapshot(userId),
  after: userSnapshot(userId),
});

function setUp({ refusedFor = [] as string[], deleted = [] as number[] } = {}) {
  const users = {
    findOne: jest.fn((id: number) =>
      deleted.includes(id)
        ? Promise.reject(userNotFound(id))
        : Promise.resolve({ id, username: `user${id}`, email: `user${id}@example.com` }),
    ),
  };
  const mail = {
    consoleLink: jest.fn(() => 'http://localhost:3000/console/reset-password'),
    deliverOnce: jest.fn((_id: number, to: string, _mail: Mail) =>
      refusedFor.includes(to) ? Promise.reject(new Error('451 try later')) : Promise.resolve(),
    ),
  };
  const sut = new PasswordChangedMailer(
    users as unknown as UsersService,
    mail as unknown as MailService,
  );
  return { sut, mail };
}

describe(PasswordChangedMailer.name, () => {
  it('should mail only the users whose password the update wrote, keyed by their outbox message', async () => {
    const { sut, mail } = setUp();

    await sut.onUserUpdated(
      [
        updated(1, ['passwordHash', 'tokensValidAfter']),
        updated(2, ['email']),
        updated(3, ['passwordHash']),
      ],
      [101, 102, 103],
    );

    expect(mail.deliverOnce.mock.calls.map(([id, to, sent]) => [id, to, sent.template])).toEqual([
      [101, 'user1@example.com', 'password-changed'],
      [103, 'user3@example.com', 'password-changed'],
    ]);
    expect(mail.deliverOnce.mock.calls[0][2].text).toContain('Hello user1,');
  });

  it('should try every mail of the batch, then throw naming those not sent', async () => {
    const { sut, mail } = setUp({ refusedFor: ['user1@example.com'] });

    await expect(
      sut.onUserUpdated([updated(1, ['passwordHash']), updated(2, ['passwordHash'])], [11, 12]),
    ).rejects.toThrow('1 password-changed mail(s) not sent: user:1: 451 try later');
    expect(mail.deliverOnce).toHaveBeenCalledTimes(2);
  });

  it('should send nothing for a user deleted since, and not fail', async () => {
    const { sut, mail } = setUp({ deleted: [1] });

    await sut.onUserUpdated([updated(1, ['passwordHash'])], [11]);

    expect(mail.deliverOnce).not.toHaveBeenCalled();
  });
});
